import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { webhookUrlProblem } from '../../../../common/contract/webhooks.ts';
import { openDatabase } from '../../../../server/storage/db.ts';
import { WebhookRepo } from '../../../../server/storage/webhook-repo.ts';
import { DEFAULT_BACKOFF } from '../../../../server/webhooks/delivery.ts';
import { SecretSeal } from '../../../../server/webhooks/sealed-secret.ts';
import { signatureOf, verifySignature } from '../../../../server/webhooks/signing.ts';
import { Webhooks } from '../../../../server/webhooks/webhooks.ts';
import type { Job } from '../../../../server/domain/job-record.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

describe('webhook addresses', () => {
  it('takes http and https, loopback and private addresses included', () => {
    for (const url of ['http://127.0.0.1:8080/x', 'https://help.example/hook?token=abc', 'http://10.0.0.5/', 'http://[::1]:9000/']) {
      assert.equal(webhookUrlProblem(url), null, url);
    }
  });
  it('refuses other schemes, credentials, relative and over-long addresses', () => {
    assert.match(webhookUrlProblem('file:///etc/passwd')!, /http/);
    assert.match(webhookUrlProblem('javascript:alert(1)')!, /http/);
    assert.match(webhookUrlProblem('ftp://x.example/')!, /http/);
    assert.match(webhookUrlProblem('data:text/plain,hi')!, /http/);
    assert.match(webhookUrlProblem('http://user:pw@x.example/')!, /user name or password/);
    assert.match(webhookUrlProblem('http://user@x.example/')!, /user name or password/);
    assert.match(webhookUrlProblem('/relative')!, /absolute/);
    assert.match(webhookUrlProblem(`http://x.example/${'a'.repeat(2_000)}`)!, /at most 2000/);
  });
});

describe('webhook signatures and secrets', () => {
  it('signs the raw body with HMAC-SHA256 as sha256=<hex>', () => {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    assert.equal(signatureOf('what do ya want for nothing?', 'Jefe'), 'sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    const body = '{"events":[]}';
    assert.ok(verifySignature(body, 's3cret', signatureOf(body, 's3cret')));
    assert.ok(!verifySignature(`${body} `, 's3cret', signatureOf(body, 's3cret')));
    assert.ok(!verifySignature(body, 's3cret', undefined));
    assert.ok(!verifySignature(body, 's3cret', 'sha256=00'));
  });
  it('seals secrets with the server secret: another server secret cannot open them', () => {
    const seal = new SecretSeal(randomBytes(32));
    const sealed = seal.seal('whsec_abc');
    assert.ok(!sealed.includes('whsec_abc'));
    assert.equal(seal.open(sealed), 'whsec_abc');
    assert.equal(new SecretSeal(randomBytes(32)).open(sealed), null);
  });
  it('backs off 2, 4, 8, 16, 32 minutes: six attempts over about an hour', () => {
    const waits = [1, 2, 3, 4, 5].map(DEFAULT_BACKOFF);
    assert.deepEqual(waits.map((ms) => ms / 60_000), [2, 4, 8, 16, 32]);
    assert.equal(waits.reduce((a, b) => a + b) / 60_000, 62);
  });
});

describe('webhook events', () => {
  const dataDir = tempDataDir();
  const db = openDatabase(dataDir);
  after(() => {
    db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  let now = Date.parse('2026-11-28T10:00:00.000Z');
  const repo = new WebhookRepo(db);
  const webhooks = new Webhooks(repo, new SecretSeal(randomBytes(32)), { get: () => null }, () => now);

  it('queues an event only for webhooks that want it, batched per second', () => {
    const jobs = webhooks.create({ url: 'http://127.0.0.1/jobs', events: ['job.failed'] }, 'olivia');
    const handoffs = webhooks.create({ url: 'http://127.0.0.1/handoffs', events: ['handoff.created'] }, 'olivia');
    webhooks.emitEvent('handoff.created', { n: 1 });
    now += 999;
    webhooks.emitEvent('handoff.created', { n: 2 });
    now += 1;
    webhooks.emitEvent('handoff.created', { n: 3 });
    assert.equal(repo.due(now + 60_000, 10).filter((d) => d.webhookId === jobs.id).length, 0);
    const batches = repo.due(now + 60_000, 10).filter((d) => d.webhookId === handoffs.id);
    assert.deepEqual(batches.map((d) => d.events.map((e) => e.data.n)), [[1, 2], [3]]);
    // A batch is due once its second is over, not before.
    assert.equal(repo.due(now - 1, 10).length, 0);
    assert.equal(repo.due(now, 10).length, 1);
  });

  it('turns ended jobs into job.succeeded / job.failed, and only failed ones among those a lost worker held', () => {
    const job = (id: number, status: string, lastError: string | null) =>
      ({ jobId: `shop-item-${id}`, status, integrationId: 'shop', knowledgeBaseId: 'kb', externalId: `item-${id}`, lastError, finishedAt: now, updatedAt: now }) as unknown as Job;
    const stored = new Map([[1, job(1, 'succeeded', null)], [2, job(2, 'failed', 'bad PDF')], [3, job(3, 'queued', null)], [4, job(4, 'failed', 'crashed the pipeline')]]);
    const withJobs = new Webhooks(repo, new SecretSeal(randomBytes(32)), { get: (id) => stored.get(id) ?? null }, () => now);
    const hook = withJobs.create({ url: 'http://127.0.0.1/all-jobs', events: ['job.succeeded', 'job.failed'] }, null);
    now += 5_000;
    withJobs.jobsEnded([{ id: 1, status: 'succeeded' }, { id: 2, status: 'failed' }]);
    withJobs.jobsRecovered([3, 4]);
    const [batch] = repo.due(now + 1_000, 10).filter((d) => d.webhookId === hook.id);
    assert.deepEqual(
      batch!.events.map((e) => [e.type, e.data.externalId, e.data.status, e.data.error]),
      [['job.succeeded', 'item-1', 'succeeded', undefined], ['job.failed', 'item-2', 'failed', 'bad PDF'], ['job.failed', 'item-4', 'failed', 'crashed the pipeline']],
    );
    assert.deepEqual(Object.keys(batch!.events[0]!.data).sort(), ['at', 'externalId', 'integrationId', 'jobId', 'knowledgeBaseId', 'status']);
  });
});
