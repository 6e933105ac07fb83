import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { main } from '../../server/cli/cli.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

/**
 * `localiq webhooks` through the command line's own entry point (in this process, on a temporary
 * data folder), with what it prints captured.
 */
describe('localiq webhooks (the command line)', () => {
  const dataDir = tempDataDir();
  const saved = { ...process.env };
  before(() => {
    Object.assign(process.env, { LOCALIQ_DATA_DIR: dataDir, LOCALIQ_SECRET_STORE: 'file', LOCALIQ_LOG_LEVEL: 'silent' });
  });
  after(() => {
    process.env = saved;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
    try {
      const code = await main(['webhooks', ...args]);
      return { code, stdout, stderr };
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
  }

  it('creates a webhook, prints its secret once, lists it without the secret, and deletes it', async () => {
    const created = await run('create', '--url', 'http://127.0.0.1:9000/helpdesk', '--events', 'job.failed,handoff.created', '--json');
    assert.equal(created.code, 0, created.stderr);
    const { id, secret, webhook } = JSON.parse(created.stdout);
    assert.match(secret, /^whsec_/);
    assert.deepEqual(webhook.events, ['job.failed', 'handoff.created']);
    const listed = await run('list');
    assert.equal(listed.code, 0);
    assert.ok(listed.stdout.includes(id) && listed.stdout.includes('http://127.0.0.1:9000/helpdesk'));
    assert.ok(!listed.stdout.includes(secret));
    const listedJson = await run('list', '--json');
    assert.ok(!listedJson.stdout.includes(secret) && !listedJson.stdout.includes('whsec_'));
    const text = await run('create', '--url', 'https://help.example/hook', '--events', 'job.succeeded');
    assert.equal(text.code, 0);
    assert.match(text.stdout, /Signing secret \(shown this once/);
    assert.equal((await run('delete', id)).code, 0);
    assert.equal(JSON.parse((await run('list', '--json')).stdout).length, 1);
    const again = await run('delete', id);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /No webhook with id/);
  });

  it('refuses bad addresses and events with a usage error naming the option', async () => {
    const scheme = await run('create', '--url', 'file:///etc/passwd', '--events', 'job.failed');
    assert.equal(scheme.code, 2);
    assert.match(scheme.stderr, /--url: must start with http:\/\/ or https:\/\//);
    const creds = await run('create', '--url', 'http://me:pw@127.0.0.1/', '--events', 'job.failed');
    assert.equal(creds.code, 2);
    assert.match(creds.stderr, /--url: must not contain a user name or password/);
    const event = await run('create', '--url', 'http://127.0.0.1/', '--events', 'job.exploded');
    assert.equal(event.code, 2);
    assert.match(event.stderr, /--events/);
    assert.equal((await run('create', '--url', 'http://127.0.0.1/')).code, 2);
    assert.equal((await run('delete')).code, 2);
  });
});
