import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { CLI, cliEnv, startServerProcess, waitForExit } from './helpers/server-process.ts';
import { item, tempDataDir } from './helpers/test-app.ts';

function localiq(dataDir: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: cliEnv(dataDir), encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('localiq CLI', () => {
  const dataDir = tempDataDir();
  let keyId = '';
  let keyValue = '';

  it('keys create prints the value once, with its settings', () => {
    const out = localiq(dataDir, 'keys', 'create', '--name', 'shop', '--scopes', 'iq:import,iq:read', '--expires', '30d',
      '--knowledge-bases', 'kb-main', '--json');
    assert.equal(out.code, 0, out.stderr);
    const created = JSON.parse(out.stdout);
    assert.match(created.value, /^liq_[0-9A-Za-z]{12}_[0-9A-Za-z]{43}$/);
    assert.deepEqual(created.scopes, ['iq:import', 'iq:read']);
    assert.deepEqual(created.knowledgeBaseIds, ['kb-main']);
    assert.ok(Math.abs(created.expiresAt - (Date.now() + 30 * 86_400_000)) < 60_000);
    keyId = created.id;
    keyValue = created.value;
  });

  it('keys list shows the key but never its value', () => {
    const out = localiq(dataDir, 'keys', 'list');
    assert.equal(out.code, 0);
    assert.match(out.stdout, new RegExp(`${keyId}\\s+liq_${keyId}\\s+active\\s+shop`));
    assert.ok(!out.stdout.includes(keyValue.split('_')[2]!));
  });

  it('refuses unknown scopes and missing names with usage help', () => {
    assert.equal(localiq(dataDir, 'keys', 'create', '--name', 'x', '--scopes', 'iq:write').code, 2);
    assert.equal(localiq(dataDir, 'keys', 'create', '--scopes', 'iq:read').code, 2);
    assert.equal(localiq(dataDir, 'keys', 'create', '--name', 'x', '--scopes', 'iq:read', '--expires', 'soon').code, 1);
    assert.equal(localiq(dataDir, 'frobnicate').code, 2);
  });

  it('the key works against the server, jobs lists the pushed work, and revoke shuts it out', async () => {
    const server = await startServerProcess(dataDir);
    try {
      const push = () =>
        fetch(`${server.url}/ingest`, {
          method: 'POST',
          headers: { 'x-api-key': keyValue, 'content-type': 'application/json' },
          body: JSON.stringify(item({ externalId: 'from-cli' })),
        });
      assert.equal((await push()).status, 200);
      const jobs = localiq(dataDir, 'jobs', '--status', 'queued', '--json');
      assert.equal(jobs.code, 0, jobs.stderr);
      assert.deepEqual(JSON.parse(jobs.stdout).map((j: { jobId: string }) => j.jobId), ['cms-from-cli']);
      assert.equal(localiq(dataDir, 'keys', 'revoke', keyId).code, 0);
      const refused = await push();
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).code, 'invalid_api_key');
      assert.match(localiq(dataDir, 'keys', 'list').stdout, new RegExp(`${keyId}\\s+\\S+\\s+revoked`));
    } finally {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
    assert.equal(server.child.exitCode, 0, 'SIGTERM stops the server cleanly');
  });

  it('serve prints where it listens and where the data lives', async () => {
    const server = await startServerProcess(dataDir);
    server.child.kill('SIGINT');
    await waitForExit(server.child);
    assert.match(server.output(), /listening on http:\/\/127\.0\.0\.1:\d+/);
    assert.ok(server.output().includes(`Data folder: ${dataDir}`));
  });

  it('help lists the commands', () => {
    const out = execFileSync(process.execPath, [CLI, 'help'], { env: cliEnv(dataDir) }).toString();
    for (const command of ['serve', 'keys create', 'keys list', 'keys revoke', 'jobs', 'backup FILE', 'restore FILE']) assert.ok(out.includes(command));
  });
});
