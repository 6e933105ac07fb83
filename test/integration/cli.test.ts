import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { IngestItem } from '../../common/contract/ingest.ts';
import { JOB_NOTES } from '../../common/contract/jobs.ts';
import { openDatabase } from '../../server/storage/db.ts';
import { JobRepo } from '../../server/storage/jobs/job-repo.ts';
import { JobRuns } from '../../server/storage/jobs/job-runs.ts';
import { CLI, cliEnv, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { item, tempDataDir } from '../helpers/temp-data.ts';

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
    assert.equal(localiq(dataDir, 'keys', 'create', '--name', 'x', '--scopes', 'iq:read', '--expires', 'soon').code, 2);
    assert.equal(localiq(dataDir, 'frobnicate').code, 2);
  });

  it('refuses option values that would make a key other than the one meant', () => {
    const emptyList = localiq(dataDir, 'keys', 'create', '--name', 'x', '--scopes', 'iq:read', '--knowledge-bases', '');
    assert.equal(emptyList.code, 2, 'an empty restriction would be no restriction');
    assert.match(emptyList.stderr, /at least one knowledge base/);
    const dateAsGrace = localiq(dataDir, 'keys', 'rotate', 'anyid', '--grace', '2027-01-31');
    assert.equal(dateAsGrace.code, 2, 'a date read as a duration kept the old key valid for decades');
    assert.match(dateAsGrace.stderr, /not a duration/);
    assert.equal(localiq(dataDir, 'keys', 'create', '--name', 'x', '--scopes', 'iq:read', '--expires', '1000000y').code, 2);
    assert.equal(localiq(dataDir, 'keys', 'list').code, 0);
  });

  it('says when it creates a data folder, and when a rotated key stops working', () => {
    const folder = tempDataDir();
    const first = localiq(folder, 'keys', 'create', '--name', 'old', '--scopes', 'iq:read', '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /held no LocalIQ database; a new one was created there/, 'a mistyped LOCALIQ_DATA_DIR shows');
    const rotated = localiq(folder, 'keys', 'rotate', JSON.parse(first.stdout).id, '--grace', '24h');
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.equal(rotated.stderr, '', 'the folder exists now');
    assert.match(localiq(folder, 'keys', 'list').stdout, /active until \d{4}-\d\d-\d\dT[\d:.]+Z\s+old/);
  });

  it('serve takes its settings from the environment only, and refuses an empty or odd port', () => {
    const withOption = localiq(dataDir, 'serve', '--port', '7539');
    assert.equal(withOption.code, 2);
    assert.match(withOption.stderr, /serve takes no options/);
    for (const port of ['', '1e3']) {
      const out = spawnSync(process.execPath, [CLI, 'serve'], { env: cliEnv(dataDir, { LOCALIQ_PORT: port }), encoding: 'utf8' });
      assert.equal(out.status, 1, `LOCALIQ_PORT=${port}`);
      assert.match(out.stderr, /LOCALIQ_PORT: must be a whole number/);
    }
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

  it('jobs shows a job\'s last error and its note in columns of their own', () => {
    const folder = tempDataDir();
    const db = openDatabase(folder);
    const now = Date.now();
    new JobRepo(db).enqueue(
      [{ items: ['broken', 'older'].map((externalId) => item({ externalId }) as IngestItem), apiKeyId: null }],
      { now, maxAttempts: 5, activeModelId: null },
    );
    const runs = new JobRuns(db);
    const claimed = new Map(runs.claim(10, now).map((job) => [job.externalId, job]));
    runs.recordFailure(claimed.get('broken')!, 'broken.pdf: damaged', now, true);
    runs.finish(claimed.get('older')!.id, 'cancelled', now, JOB_NOTES.superseded);
    db.close();

    const out = localiq(folder, 'jobs');
    assert.equal(out.code, 0, out.stderr);
    const [header, ...lines] = out.stdout.replace(/\n$/, '').split('\n').map((line) => line.split('\t'));
    const column = (name: string) => header!.indexOf(name);
    const row = (jobId: string) => lines.find((cells) => cells[0] === jobId)!;
    assert.ok(column('last error') > 0 && column('note') > column('last error'), header!.join(' | '));
    assert.deepEqual([row('cms-broken')[1], row('cms-broken')[column('last error')], row('cms-broken')[column('note')]], ['failed', 'broken.pdf: damaged', '']);
    assert.deepEqual([row('cms-older')[1], row('cms-older')[column('last error')], row('cms-older')[column('note')]], ['cancelled', '', 'superseded by a newer version']);
  });

  it('serve prints where it listens and where the data lives, as readable lines when asked (a terminal gets them by default)', async () => {
    const server = await startServerProcess(dataDir, { LOCALIQ_LOG_FORMAT: 'pretty', LOCALIQ_LOG_LEVEL: 'info' });
    server.child.kill('SIGINT');
    await waitForExit(server.child);
    const lines = server.output().trimEnd().split('\n');
    for (const line of lines) assert.match(line, /^\d\d:\d\d:\d\d (INFO|WARN) {1,2}\S/, `one format: ${line}`);
    assert.match(server.output(), /INFO  LocalIQ is listening on http:\/\/127\.0\.0\.1:\d+/);
    assert.ok(server.output().includes(`INFO  Data folder: ${dataDir}`));
    assert.match(server.output(), /Stopping LocalIQ.*\n(.*\n)*.*INFO  LocalIQ stopped\.\n/);
  });

  it('serve writes JSON lines only when its output is no terminal', async () => {
    const server = await startServerProcess(dataDir, { LOCALIQ_LOG_LEVEL: 'info' });
    server.child.kill('SIGTERM');
    await waitForExit(server.child);
    const records = server.output().trimEnd().split('\n').map((line) => JSON.parse(line) as { level: number; msg: string });
    assert.ok(records.some((r) => r.level === 30 && r.msg.startsWith('LocalIQ is listening on http://127.0.0.1:')));
    assert.ok(records.some((r) => r.msg === `Data folder: ${dataDir} (server secret in the file store)`));
    assert.ok(
      records.some((r) => r.msg === `Server secret: in ${path.join(dataDir, 'server-secret')} (mode 0600), as LOCALIQ_SECRET_STORE=file asks.`),
      'the file store is named with its reason',
    );
    const url = records.find((r) => r.msg.startsWith('LocalIQ is listening on '))!.msg.split(' ')[4];
    assert.ok(
      records.some((r) => r.msg === `No dashboard account yet: open ${url}/ in a browser to create the first one, the Owner.`),
      'a folder without users says where the Owner account is created',
    );
    assert.equal(records.at(-1)!.msg, 'LocalIQ stopped.');
  });

  it('serve says why the server secret went into the file store when no keychain answered, and what to do', async () => {
    const folder = tempDataDir();
    // No D-Bus session: the OS keychain of a headless Linux server cannot be reached.
    const server = await startServerProcess(folder, { LOCALIQ_SECRET_STORE: 'auto', DBUS_SESSION_BUS_ADDRESS: '', LOCALIQ_LOG_LEVEL: 'info' });
    server.child.kill('SIGTERM');
    await waitForExit(server.child);
    const records = server.output().trimEnd().split('\n').map((line) => JSON.parse(line) as { level: number; msg: string });
    const note = records.find((r) => r.msg.startsWith('Server secret:'));
    assert.ok(note, server.output());
    const because = `Server secret: in ${path.join(folder, 'server-secret')} (mode 0600), because the OS keychain did not answer: no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)`;
    assert.ok(note.msg.startsWith(because), note.msg);
    assert.match(note.msg, /inside a D-Bus session with an unlocked gnome-keyring/);
  });

  it('a second server on the same data folder stops before it touches the queue', async () => {
    const folder = tempDataDir();
    const server = await startServerProcess(folder);
    try {
      const second = spawnSync(process.execPath, [CLI, 'serve'], { env: cliEnv(folder, { LOCALIQ_WORKERS: '1' }), encoding: 'utf8', timeout: 60_000 });
      assert.equal(second.status, 1, second.stdout + second.stderr);
      assert.match(second.stderr, /Another LocalIQ server is running on the data folder/);
    } finally {
      server.child.kill('SIGTERM');
      await waitForExit(server.child);
    }
    const again = await startServerProcess(folder);
    again.child.kill('SIGTERM');
    await waitForExit(again.child);
    assert.equal(again.child.exitCode, 0, 'the lock goes with the server that held it');
  });

  it('stopping with a busy queue ends after the batches in hand: no job claimed later, none left in progress', async () => {
    const folder = tempDataDir();
    const created = JSON.parse(localiq(folder, 'keys', 'create', '--name', 'stop', '--scopes', 'iq:import', '--json').stdout);
    const server = await startServerProcess(folder, { LOCALIQ_WORKERS: '1', LOCALIQ_BATCH_JOBS: '4' });
    const headers = { 'x-api-key': created.value, 'content-type': 'application/json' };
    const content = Array.from({ length: 60 }, (_, i) => `Sentence ${i} about the shop's opening hours.`).join(' ');
    const items = Array.from({ length: 300 }, (_, i) => item({ externalId: `busy-${i}`, data: { title: `Page ${i}`, content } }));
    assert.equal((await fetch(`${server.url}/ingest/bulk`, { method: 'POST', headers, body: JSON.stringify({ items }) })).status, 200);
    for (;;) {
      const page = await (await fetch(`${server.url}/jobs?status=succeeded&limit=1`, { headers })).json();
      if (page.data.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    await waitForExit(server.child);
    assert.equal(server.child.exitCode, 0, server.output());
    const db = new Database(path.join(folder, 'localiq.db'), { readonly: true });
    try {
      assert.equal(db.prepare("SELECT count(*) FROM jobs WHERE status = 'processing'").pluck().get(), 0);
      const lastStart = db.prepare('SELECT max(started_at) FROM jobs').pluck().get() as number;
      // The stop reaches the workers a moment after the signal: a batch ending in that moment may
      // still claim the next. Before, workers went on claiming for as long as work was left.
      assert.ok(lastStart <= signalled + 100, `a job was claimed ${lastStart - signalled} ms after the stop signal`);
      assert.ok((db.prepare("SELECT count(*) FROM jobs WHERE status = 'queued'").pluck().get() as number) > 0, 'work was left to stop');
    } finally {
      db.close();
    }
  });

  it('help lists the commands, after any command too', () => {
    for (const args of [['help'], ['keys', '--help'], ['import', '-h']]) {
      const out = execFileSync(process.execPath, [CLI, ...args], { env: cliEnv(dataDir) }).toString();
      for (const command of ['serve', 'keys create', 'keys list', 'keys revoke', 'jobs', 'backup FILE', 'restore FILE']) assert.ok(out.includes(command), args.join(' '));
    }
  });

  it('without a build, says how to make one', () => {
    const checkout = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-unbuilt-'));
    try {
      fs.mkdirSync(path.join(checkout, 'bin'));
      fs.copyFileSync(CLI, path.join(checkout, 'bin', 'localiq.js'));
      const out = spawnSync(process.execPath, [path.join(checkout, 'bin', 'localiq.js'), 'keys', 'list'], { env: cliEnv(dataDir), encoding: 'utf8' });
      assert.equal(out.status, 1);
      assert.match(out.stderr, /not built yet\. Run `npm run build`/);
      assert.equal(out.stdout, '');
    } finally {
      fs.rmSync(checkout, { recursive: true, force: true });
    }
  });
});
