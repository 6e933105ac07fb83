import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../server/config.ts';
import { createLogs } from '../../server/logging.ts';
import { startServer } from '../../server/main.ts';
import { WebhookDelivery } from '../../server/webhooks/delivery.ts';
import { PassRunner } from '../../server/domain/background-pass.ts';
import { verifySignature } from '../../server/webhooks/signing.ts';
import { AdminClient, signedInAs } from '../helpers/admin-client.ts';
import { item, tempDataDir } from '../helpers/temp-data.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const OWNER = { username: 'olivia', password: 'correct horse battery' };

type Received = { path: string; headers: http.IncomingHttpHeaders; body: string };

/** A webhook receiver on loopback: records each POST with its raw body; `answer` decides the reply per path. */
async function receiver(answer: (path: string, count: number, res: http.ServerResponse) => void = (_p, _c, res) => res.end('ok')) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(path, received.filter((r) => r.path === path).length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    on: (path: string) => received.filter((r) => r.path === path),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('webhooks: delivery to a receiver on loopback', () => {
  let t: TestApp;
  let owner: AdminClient;
  let now = Date.parse('2026-11-28T10:00:00.200Z');
  const clock = () => now;
  let rx: Awaited<ReturnType<typeof receiver>>;
  const logLines: string[] = [];
  let delivery: WebhookDelivery;

  before(async () => {
    rx = await receiver((path, count, res) => {
      if (path === '/flaky' && count === 1) return void res.writeHead(500).end('try later');
      if (path === '/moved') return void res.writeHead(302, { location: `${rx.base}/elsewhere` }).end();
      if (path === '/slow') return void setTimeout(() => res.end('late'), 3_000).unref();
      res.end('ok');
    });
    t = await createTestApp({ logLevel: 'debug' }, undefined, { clock, logStream: { write: (line: string) => void logLines.push(line) } });
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
    delivery = new WebhookDelivery({
      repo: t.services.webhookRepo,
      target: (id) => t.services.webhooks.target(id),
      clock,
      backoff: (failed) => 1_000 * failed,
      timeoutMs: 400,
      log: (entry) => t.app.log.warn(entry, 'webhook delivery failed'),
    });
  });
  after(async () => {
    await delivery.flush();
    await t.close();
    await rx.close();
  });

  const create = async (path: string, events = ['job.succeeded', 'handoff.created']) => {
    const res = await owner.post('/webhooks', { url: `${rx.base}${path}`, events });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: string; secret: string };
  };

  it('signs the raw body, batches the events of one second into one POST, and logs the delivery', async () => {
    const hook = await create('/signed');
    assert.match(hook.secret, /^whsec_[\w-]{43}$/);
    t.services.webhooks.emitEvent('handoff.created', { handoffId: 'h1' });
    now += 300;
    t.services.webhooks.emitEvent('handoff.created', { handoffId: 'h2' });
    // The second is not over: nothing is due yet.
    await delivery.tick();
    assert.equal(rx.on('/signed').length, 0);
    now += 600;
    t.services.webhooks.emitEvent('handoff.created', { handoffId: 'h3' });
    now += 1_000;
    await delivery.tick();
    const got = rx.on('/signed');
    assert.equal(got.length, 2, 'one POST per second');
    const first = got.find((r) => JSON.parse(r.body).events.length === 2)!;
    assert.ok(first, 'the two events of the first second came in one body');
    assert.deepEqual(JSON.parse(first.body).events.map((e: { data: { handoffId: string } }) => e.data.handoffId), ['h1', 'h2']);
    assert.ok(verifySignature(first.body, hook.secret, String(first.headers['x-localiq-signature'])));
    assert.ok(!verifySignature(first.body, `${hook.secret}x`, String(first.headers['x-localiq-signature'])));
    assert.ok(!verifySignature(`${first.body} `, hook.secret, String(first.headers['x-localiq-signature'])));
    assert.match(String(first.headers['user-agent']), /^LocalIQ-Webhooks\//);
    assert.equal(first.headers['content-type'], 'application/json');
    const log = await owner.get(`/webhooks/${hook.id}/deliveries`);
    assert.equal(log.statusCode, 200);
    const entries = log.json().data as Array<{ httpStatus: number; attempt: number; events: string[]; eventCount: number; state: string }>;
    assert.equal(entries.length, 2);
    assert.ok(entries.every((e) => e.httpStatus === 200 && e.attempt === 1 && e.state === 'delivered' && e.events[0] === 'handoff.created'));
    assert.deepEqual(entries.map((e) => e.eventCount).sort(), [1, 2]);
  });

  it('retries after a 500 with backoff, then succeeds with the same signed body', async () => {
    const hook = await create('/flaky');
    t.services.webhooks.emitEvent('handoff.created', { handoffId: 'retry-me' });
    now += 1_000;
    await delivery.tick();
    assert.equal(rx.on('/flaky').length, 1);
    // Before the backoff (1 s after the first failure here) has passed, nothing is sent again.
    now += 500;
    await delivery.tick();
    assert.equal(rx.on('/flaky').length, 1);
    now += 600;
    await delivery.tick();
    const got = rx.on('/flaky');
    assert.equal(got.length, 2);
    assert.equal(got[1]!.body, got[0]!.body);
    assert.ok(verifySignature(got[1]!.body, hook.secret, String(got[1]!.headers['x-localiq-signature'])));
    const entries = (await owner.get(`/webhooks/${hook.id}/deliveries`)).json().data;
    assert.deepEqual(entries.map((e: { attempt: number; httpStatus: number }) => [e.attempt, e.httpStatus]), [[2, 200], [1, 500]]);
    assert.equal(entries[1].error, 'HTTP 500');
    const listed = (await owner.get('/webhooks')).json().data.find((w: { id: string }) => w.id === hook.id);
    assert.equal(listed.state, 'active');
    assert.equal(listed.lastDelivery.httpStatus, 200);
  });

  it('does not follow a redirect: a 3xx is a failure, logged and retried', async () => {
    const hook = await create('/moved');
    t.services.webhooks.emitEvent('handoff.created', { handoffId: 'moved' });
    now += 1_000;
    await delivery.tick();
    assert.equal(rx.on('/moved').length, 1);
    assert.equal(rx.on('/elsewhere').length, 0, 'the redirect target was never called');
    const [entry] = (await owner.get(`/webhooks/${hook.id}/deliveries`)).json().data;
    assert.equal(entry.httpStatus, 302);
    assert.match(entry.error, /redirect \(HTTP 302\) not followed/);
    assert.equal(entry.state, 'retrying');
    const listed = (await owner.get('/webhooks')).json().data.find((w: { id: string }) => w.id === hook.id);
    assert.equal(listed.state, 'failing');
    assert.equal((await owner.delete(`/webhooks/${hook.id}`)).statusCode, 204);
  });

  it('times out a very slow receiver without holding the delivery to another', async () => {
    const slow = await create('/slow');
    const fast = await create('/fast');
    t.services.webhooks.emitEvent('handoff.created', { handoffId: 'both' });
    now += 1_000;
    const patient = new WebhookDelivery({ repo: t.services.webhookRepo, target: (id) => t.services.webhooks.target(id), clock, timeoutMs: 2_000 });
    const pass = patient.tick();
    // The fast receiver's delivery is done and logged while the slow one is still waited for.
    await until(() => t.services.webhooks.deliveries(fast.id)!.length === 1, 'the fast delivery');
    assert.equal(t.services.webhooks.deliveries(fast.id)![0]!.httpStatus, 200);
    assert.equal(t.services.webhooks.deliveries(slow.id)!.length, 0, 'the slow delivery is still in flight');
    await pass;
    const [slowEntry] = (await owner.get(`/webhooks/${slow.id}/deliveries`)).json().data;
    assert.equal(slowEntry.httpStatus, null);
    assert.equal(slowEntry.error, 'no answer within 2 s');
    assert.ok(slowEntry.durationMs >= 1_900 && slowEntry.durationMs < 2_900, `duration ${slowEntry.durationMs}`);
    assert.equal((await owner.delete(`/webhooks/${slow.id}`)).statusCode, 204);
    assert.equal((await owner.delete(`/webhooks/${fast.id}`)).statusCode, 204);
  });

  it('gives up after the last attempt', async () => {
    const hook = await create('/gone-after-6');
    const rxDown = new WebhookDelivery({ repo: t.services.webhookRepo, target: () => ({ url: 'http://127.0.0.1:9/', secret: 's' }), clock, backoff: () => 10, maxAttempts: 3 });
    t.services.webhooks.emitEvent('handoff.created', { handoffId: 'never' });
    for (let i = 0; i < 5; i++) {
      now += 1_000;
      await rxDown.tick();
    }
    const entries = (await owner.get(`/webhooks/${hook.id}/deliveries`)).json().data;
    assert.deepEqual(entries.map((e: { attempt: number }) => e.attempt), [3, 2, 1]);
    assert.ok(entries.every((e: { state: string; error: string }) => e.state === 'failed' && e.error.length > 0));
    assert.equal((await owner.delete(`/webhooks/${hook.id}`)).statusCode, 204);
  });

  it('lists webhooks without their secrets, and never writes a secret to the log', async () => {
    const hook = await create('/quiet');
    const listed = await owner.get('/webhooks');
    assert.ok(!listed.body.includes(hook.secret));
    assert.ok(!listed.body.includes('secret'));
    const stored = t.services.db.prepare('SELECT secret_sealed FROM webhooks WHERE id = ?').get(hook.id) as { secret_sealed: string };
    assert.ok(!stored.secret_sealed.includes(hook.secret.slice(6)), 'the secret is sealed in the database');
    assert.ok(logLines.length > 0, 'the log was captured');
    assert.ok(logLines.some((line) => line.includes('webhook delivery failed')), 'failures were logged');
    for (const line of logLines) {
      assert.ok(!line.includes(hook.secret) && !/whsec_/.test(line), `a log line carries a secret: ${line}`);
    }
  });

  it('goes on with pending deliveries after a restart (they live in SQLite)', async () => {
    const hook = await create('/after-restart');
    t.services.webhooks.emitEvent('handoff.created', { handoffId: 'durable' });
    now += 1_000;
    // A new delivery pass, as a restarted server makes, finds the delivery in the database.
    const restarted = new WebhookDelivery({ repo: t.services.webhookRepo, target: (id) => t.services.webhooks.target(id), clock });
    await restarted.tick();
    assert.equal(rx.on('/after-restart').length, 1);
    assert.equal((await owner.delete(`/webhooks/${hook.id}`)).statusCode, 204);
  });

  it('a background pass that cannot read the database is logged, and the next pass delivers', async () => {
    const hook = await create('/after-busy');
    t.services.webhooks.emitEvent('handoff.created', { handoffId: 'busy' });
    now += 1_000;
    let busyOnce = true;
    const repo = t.services.webhookRepo;
    const flakyRepo = Object.assign(Object.create(repo) as typeof repo, {
      due: (at: number, limit: number) => {
        if (busyOnce) {
          busyOnce = false;
          throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
        }
        return repo.due(at, limit);
      },
    });
    const passErrors: unknown[] = [];
    const background = new PassRunner(
      [new WebhookDelivery({ repo: flakyRepo, target: (id) => t.services.webhooks.target(id), clock, intervalMs: 20 })],
      { failed: (_pass, error) => passErrors.push(error) },
    );
    background.start();
    try {
      const end = Date.now() + 10_000;
      while (rx.on('/after-busy').length === 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await background.stop();
    }
    assert.equal(passErrors.length, 1, 'the failed pass was logged once');
    assert.match(String((passErrors[0] as Error).message), /locked/);
    assert.equal(rx.on('/after-busy').length, 1, 'the next pass delivered');
    assert.equal((await owner.delete(`/webhooks/${hook.id}`)).statusCode, 204);
  });
});

describe('webhooks: who may register one, and which addresses', () => {
  let t: TestApp;
  let owner: AdminClient;
  before(async () => {
    t = await createTestApp();
    owner = new AdminClient(t.app);
    assert.equal((await owner.post('/setup', OWNER)).statusCode, 201);
  });
  after(() => t.close());

  for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'ftp://files.example/x', 'gopher://x', '//no-scheme.example', 'not a url']) {
    it(`refuses ${url}`, async () => {
      const res = await owner.post('/webhooks', { url, events: ['job.succeeded'] });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'invalid_body');
      assert.equal(res.json().details[0].path, 'url');
    });
  }

  it('refuses credentials in the address, an address too long, and unknown or repeated events', async () => {
    for (const url of ['http://user:pass@127.0.0.1/hook', 'https://token@help.example/hook', `http://127.0.0.1/${'a'.repeat(2_000)}`]) {
      const res = await owner.post('/webhooks', { url, events: ['job.succeeded'] });
      assert.equal(res.statusCode, 400, url.slice(0, 40));
      assert.equal(res.json().code, 'invalid_body');
    }
    for (const events of [[], ['job.exploded'], ['job.failed', 'job.failed']]) {
      const res = await owner.post('/webhooks', { url: 'http://127.0.0.1/hook', events });
      assert.equal(res.statusCode, 400, JSON.stringify(events));
    }
    assert.equal((await owner.get('/webhooks')).json().data.length, 0);
  });

  it('allows loopback and private addresses: the receiver may be on the shop network', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://192.168.1.20/helpdesk', 'https://[::1]/x']) {
      assert.equal((await owner.post('/webhooks', { url, events: ['handoff.created'] })).statusCode, 201, url);
    }
  });

  it('lets only the Owner and Admins create, list, delete or read the log', async () => {
    const member = await signedInAs(owner, t.app, 'member');
    const created = await member.post('/webhooks', { url: 'http://127.0.0.1/hook', events: ['job.failed'] });
    assert.equal(created.statusCode, 403);
    assert.equal(created.json().code, 'forbidden');
    const [one] = (await owner.get('/webhooks')).json().data;
    assert.equal((await member.get('/webhooks')).statusCode, 403);
    assert.equal((await member.delete(`/webhooks/${one.id}`)).statusCode, 403);
    assert.equal((await member.get(`/webhooks/${one.id}/deliveries`)).statusCode, 403);
    const admin = await signedInAs(owner, t.app, 'admin');
    assert.equal((await admin.post('/webhooks', { url: 'http://127.0.0.1/admin', events: ['job.failed'] })).statusCode, 201);
    assert.equal((await admin.delete(`/webhooks/${one.id}`)).statusCode, 204);
    assert.equal((await admin.get(`/webhooks/${one.id}/deliveries`)).statusCode, 404);
    const anonymous = await t.app.inject({ method: 'GET', url: '/admin/api/webhooks' });
    assert.equal(anonymous.statusCode, 401);
  });

  it('requires the CSRF token and the same origin to create or delete', async () => {
    const before = (await owner.get('/webhooks')).json().data.length;
    const noCsrf = await owner.post('/webhooks', { url: 'http://127.0.0.1/csrf', events: ['job.failed'] }, { 'x-localiq-csrf': '' });
    assert.equal(noCsrf.statusCode, 403);
    const otherOrigin = await owner.post('/webhooks', { url: 'http://127.0.0.1/csrf', events: ['job.failed'] }, { origin: 'http://evil.example', host: '127.0.0.1:7410' });
    assert.equal(otherOrigin.statusCode, 403);
    const [one] = (await owner.get('/webhooks')).json().data;
    assert.equal((await owner.delete(`/webhooks/${one.id}`, { 'x-localiq-csrf': 'x'.repeat(43) })).statusCode, 403);
    assert.equal((await owner.get('/webhooks')).json().data.length, before);
  });
});

describe('webhooks: job.succeeded after a real push is indexed', () => {
  it('POST /ingest → the pipeline indexes the item → job.succeeded arrives, signed', async () => {
    const rx = await receiver();
    const logged: string[] = [];
    const config = loadConfig(
      { LOCALIQ_DATA_DIR: tempDataDir(), LOCALIQ_SECRET_STORE: 'file', LOCALIQ_LOG_LEVEL: 'info', LOCALIQ_PORT: '0' },
      { workers: 1 },
    );
    const server = await startServer(config, createLogs(config, { write: (line: string) => void logged.push(line) }));
    try {
      const created = server.services.webhooks.create({ url: `${rx.base}/jobs`, events: ['job.succeeded', 'job.failed'] }, 'test');
      const key = server.services.keys.create({ name: 'push', scopes: ['iq:import', 'iq:read'] }).value;
      const res = await fetch(`${server.url}/ingest`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(item({ externalId: 'faq-1' }, { title: 'Opening hours', content: 'We open at nine every weekday.' })),
      });
      assert.ok(res.ok, await res.clone().text());
      await until(() => rx.on('/jobs').length > 0, 'the job.succeeded delivery', 60_000);
      const [got] = rx.on('/jobs');
      assert.ok(verifySignature(got!.body, created.secret, String(got!.headers['x-localiq-signature'])));
      const [event] = JSON.parse(got!.body).events;
      assert.equal(event.type, 'job.succeeded');
      assert.equal(event.data.integrationId, 'cms');
      assert.equal(event.data.knowledgeBaseId, 'kb-main');
      assert.equal(event.data.externalId, 'faq-1');
      assert.equal(event.data.status, 'succeeded');
      assert.equal(event.data.jobId, 'cms-faq-1');
      assert.ok(!Number.isNaN(Date.parse(event.data.at)));
      // Searchable by the time the event arrives.
      const search = await fetch(`${server.url}/knowledge-bases/kb-main/search`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'opening hours', mode: 'keyword' }),
      });
      const found = JSON.stringify(await search.json());
      assert.ok(found.includes('faq-1'), found.slice(0, 300));
      assert.ok(logged.every((line) => !line.includes(created.secret)));
    } finally {
      await server.stop();
      await rx.close();
    }
  });
});
