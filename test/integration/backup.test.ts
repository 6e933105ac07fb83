import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AsyncEntry } from '@napi-rs/keyring';
import Database from 'better-sqlite3';
import { keychainAccount } from '../../server/secrets/server-secret.ts';
import { backupInThread, openBackup } from '../../server/storage/backup.ts';
import { openDatabase } from '../../server/storage/db.ts';
import { AdminClient, signedInAs } from '../helpers/admin-client.ts';
import { CLI, cliEnv, startServerProcess, waitForExit, type ServerProcess } from '../helpers/server-process.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { item, tempDataDir } from '../helpers/temp-data.ts';
import { skipWhereMissing } from '../helpers/skip-where-missing.ts';

type Run = { code: number | null; stdout: string; stderr: string };

function localiq(dataDir: string, args: string[], extra: Record<string, string> = {}): Run {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: cliEnv(dataDir, extra), encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same, without blocking this process: the server under test keeps being called meanwhile. */
function localiqAsync(dataDir: string, args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

function createKey(dataDir: string, extra: Record<string, string> = {}): string {
  const out = localiq(dataDir, ['keys', 'create', '--name', 'shop', '--scopes', 'iq:import,iq:read', '--json'], extra);
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout).value;
}

async function call(server: ServerProcess, key: string, method: string, route: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${route}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function pushBulk(server: ServerProcess, key: string, ids: string[]): Promise<void> {
  const res = await call(server, key, 'POST', '/ingest/bulk', { items: ids.map((externalId) => item({ externalId })) });
  assert.equal(res.status, 200, await res.text());
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  await waitForExit(server.child);
}

function jobIdsIn(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[], string>("SELECT integration_id || '-' || external_id FROM jobs ORDER BY id")
      .pluck()
      .all();
  } finally {
    db.close();
  }
}

const range = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('localiq backup and restore', () => {
  const dataDir = tempDataDir();
  const backupFile = path.join(tempDataDir(), 'localiq-backup.db');
  let key = '';

  it('backup while the server takes pushes: a whole copy with every job acknowledged before it began', async () => {
    key = createKey(dataDir);
    // Pushes go on for as long as the backup takes, which on a busy machine outlasts the default
    // rate limit's burst; the limit is not what this test is about.
    const server = await startServerProcess(dataDir, { LOCALIQ_RATE_LIMIT_PER_SECOND: '100000', LOCALIQ_RATE_LIMIT_BURST: '100000' });
    try {
      await pushBulk(server, key, range('before', 500));
      let pushing = true;
      let answered = 0;
      const pushes = (async () => {
        for (let n = 0; pushing; n++) {
          const res = await call(server, key, 'POST', '/ingest', item({ externalId: `during-${n}` }));
          assert.equal(res.status, 200);
          answered++;
        }
      })();
      const backup = await localiqAsync(dataDir, ['backup', backupFile, '--json']);
      pushing = false;
      await pushes;
      assert.equal(backup.code, 0, backup.stderr);
      assert.ok(answered > 0, 'the server answered pushes while the backup ran');

      const report = JSON.parse(backup.stdout);
      assert.equal(report.file, backupFile);
      assert.equal(report.bytes, fs.statSync(backupFile).size);
      const ids = jobIdsIn(backupFile);
      assert.equal(report.jobs, ids.length);
      assert.deepEqual(ids.slice(0, 500), range('cms-before', 500));
      assert.ok(ids.slice(500).every((id) => id.startsWith('cms-during-')), 'only pushes made meanwhile follow');
      openBackup(backupFile).close(); // whole: passes its check, and is LocalIQ's
      assert.equal(fs.existsSync(`${backupFile}.partial`), false);
    } finally {
      await stop(server);
    }
  });

  it('backup refuses to overwrite a file, a folder without a database, and a file inside the data folder', () => {
    const before = fs.readFileSync(backupFile);
    const again = localiq(dataDir, ['backup', backupFile]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already/);
    assert.deepEqual(fs.readFileSync(backupFile), before);

    const empty = tempDataDir();
    const none = localiq(empty, ['backup', path.join(tempDataDir(), 'b.db')]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no LocalIQ database/);
    assert.deepEqual(fs.readdirSync(empty), []);
    assert.equal(localiq(dataDir, ['backup']).code, 2);

    const inside = localiq(dataDir, ['backup', path.join(dataDir, 'inside.db')]);
    assert.equal(inside.code, 2);
    assert.match(inside.stderr, /outside the data folder/);
    assert.equal(fs.existsSync(path.join(dataDir, 'inside.db')), false);
  });

  it('backup refuses a disk without room before writing to it, and says how much is needed', (test) => {
    const source = tempDataDir();
    openDatabase(source).close();
    const disk = path.join(tempDataDir(), 'small-disk');
    fs.mkdirSync(disk);
    // A real 2 MB file system, mounted in a user and mount namespace of its own, so that no root
    // is needed; the backup runs in it, and what the disk holds afterwards is listed there.
    const script = 'mount -t tmpfs -o size=2m tmpfs "$1" || exit 99; "$2" "$3" backup "$1/backup.db"; code=$?; ls -A "$1"; exit $code';
    const run = spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', script, '--', disk, process.execPath, CLI], {
      env: cliEnv(source),
      encoding: 'utf8',
    });
    if (run.error || run.status === 99) return skipWhereMissing(test, `a small file system cannot be mounted here: ${run.error?.message ?? run.stderr}`);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, new RegExp(`^localiq: Not enough free space in ${disk}: the backup needs about \\d+ MB \\(and 64 MB to spare\\), 2 MB are free\\.\n$`));
    assert.equal(run.stdout, '', 'nothing written to the disk');
  });

  it('restore is refused while the server runs, and changes nothing', async () => {
    const server = await startServerProcess(dataDir);
    try {
      await pushBulk(server, key, range('after', 20));
      const refused = localiq(dataDir, ['restore', backupFile]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /running on this data folder/);
      assert.deepEqual(fs.readdirSync(dataDir).filter((f) => f.includes('restor')), []);
      assert.equal((await call(server, key, 'GET', '/jobs/cms-after-19')).status, 200);
    } finally {
      await stop(server);
    }
  });

  it('restore puts the backup in place, keeps the database it replaced, and the keys still work', async () => {
    const restored = localiq(dataDir, ['restore', backupFile, '--json']);
    assert.equal(restored.code, 0, restored.stderr);
    const report = JSON.parse(restored.stdout);
    assert.equal(report.revokedApiKeys, 0);
    assert.deepEqual(jobIdsIn(path.join(dataDir, 'localiq.db')), jobIdsIn(backupFile));
    assert.ok(jobIdsIn(report.keptAs).includes('cms-after-19'), 'the replaced database keeps what it had committed');
    // Each copy holds password and key hashes and all content: for its owner's eyes only.
    for (const file of [backupFile, path.join(dataDir, 'localiq.db'), report.keptAs]) {
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, file);
    }

    const server = await startServerProcess(dataDir);
    try {
      assert.equal((await call(server, key, 'GET', '/jobs/cms-before-499')).status, 200);
      assert.equal((await call(server, key, 'GET', '/jobs/cms-after-19')).status, 404);
      await pushBulk(server, key, ['after-restore']);
    } finally {
      await stop(server);
    }
  });

  it("elsewhere, restore needs the backup's server secret, or --new-secret, which revokes its keys", async () => {
    const elsewhere = tempDataDir();
    const refused = localiq(elsewhere, ['restore', backupFile]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /server secret that .* does not have.*Nothing was changed/s);
    assert.deepEqual(fs.readdirSync(elsewhere), []);

    // Another folder's secret is not the one either: the check value kept in the database tells.
    const other = tempDataDir();
    createKey(other);
    fs.copyFileSync(path.join(other, 'server-secret'), path.join(elsewhere, 'server-secret'));
    assert.equal(localiq(elsewhere, ['restore', backupFile]).code, 1);

    const renewed = localiq(elsewhere, ['restore', backupFile, '--new-secret', '--json']);
    assert.equal(renewed.code, 0, renewed.stderr);
    assert.equal(JSON.parse(renewed.stdout).revokedApiKeys, 1);
    const newKey = createKey(elsewhere);
    const server = await startServerProcess(elsewhere);
    try {
      assert.equal((await call(server, key, 'GET', '/jobs/cms-before-0')).status, 401);
      assert.equal((await call(server, newKey, 'GET', '/jobs/cms-before-0')).status, 200);
    } finally {
      await stop(server);
    }
  });

  it("with the backup's server-secret file copied along, its keys work in another folder", async () => {
    const moved = tempDataDir();
    fs.copyFileSync(path.join(dataDir, 'server-secret'), path.join(moved, 'server-secret'));
    const restored = localiq(moved, ['restore', backupFile, '--json']);
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(JSON.parse(restored.stdout).keptAs, null);
    const server = await startServerProcess(moved);
    try {
      assert.equal((await call(server, key, 'GET', '/jobs/cms-before-0')).status, 200);
    } finally {
      await stop(server);
    }
  });

  it('restore refuses what is not a whole LocalIQ backup of a known schema, and changes nothing', () => {
    const folder = tempDataDir();
    const bad = (name: string, write: (file: string) => void) => {
      const file = path.join(folder, name);
      write(file);
      return file;
    };
    const cases: Array<[string, RegExp]> = [
      [bad('text.db', (f) => fs.writeFileSync(f, 'not a database at all, just some text '.repeat(200))), /not a whole LocalIQ backup/],
      [bad('other-app.db', (f) => new Database(f).exec('CREATE TABLE notes (body TEXT)').close()), /not a LocalIQ backup/],
      [bad('cut.db', (f) => fs.writeFileSync(f, fs.readFileSync(backupFile).subarray(0, 40_000))), /not a whole LocalIQ backup|damaged/],
      [
        bad('newer.db', (f) => {
          fs.copyFileSync(backupFile, f);
          new Database(f).pragma('user_version = 999');
        }),
        /newer LocalIQ/,
      ],
      [path.join(folder, 'missing.db'), /no file at/],
    ];
    const target = tempDataDir();
    for (const [file, message] of cases) {
      const out = localiq(target, ['restore', file]);
      assert.equal(out.code, 1, `${path.basename(file)}: ${out.stdout}`);
      assert.match(out.stderr, message, path.basename(file));
    }
    assert.deepEqual(fs.readdirSync(target), []);
  });

  it('keychain store: restored in its own folder the keys work; in another, only with --new-secret', async (t) => {
    const probe = new AsyncEntry('LocalIQ', `probe-${process.pid}`);
    try {
      await probe.setPassword('probe', AbortSignal.timeout(5_000));
      await probe.deletePassword();
    } catch {
      assert.notEqual(process.env.LOCALIQ_TEST_KEYCHAIN, 'required', 'the OS keychain must answer in this run');
      t.skip('no OS keychain answers on this machine (npm test starts one where gnome-keyring is installed)');
      return;
    }
    const keychain = { LOCALIQ_SECRET_STORE: 'keychain' };
    const home = tempDataDir();
    const elsewhere = tempDataDir();
    const file = path.join(tempDataDir(), 'keychain-backup.db');
    try {
      createKey(home, keychain);
      assert.equal(localiq(home, ['backup', file], keychain).code, 0);
      const back = localiq(home, ['restore', file, '--json'], keychain);
      assert.equal(back.code, 0, back.stderr);
      assert.equal(JSON.parse(back.stdout).revokedApiKeys, 0);
      const moved = localiq(elsewhere, ['restore', file], keychain);
      assert.equal(moved.code, 1);
      assert.match(moved.stderr, /server secret/);
      assert.equal(localiq(elsewhere, ['restore', file, '--new-secret'], keychain).code, 0);
      const list = localiq(elsewhere, ['keys', 'list', '--json'], keychain);
      assert.equal(list.code, 0, list.stderr);
      assert.deepEqual(JSON.parse(list.stdout).map((k: { state: string }) => k.state), ['revoked']);
    } finally {
      for (const folder of [home, elsewhere]) {
        await new AsyncEntry('LocalIQ', keychainAccount(folder)).deletePassword().catch(() => undefined);
      }
    }
  });
});

describe('backup from the dashboard', () => {
  it('the Owner downloads a whole backup, written aside and removed once sent; nobody else may', async () => {
    const t = await createTestApp();
    try {
      const owner = new AdminClient(t.app);
      assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
      const key = t.key();
      const bulk = await t.app.inject({
        method: 'POST',
        url: '/ingest/bulk',
        headers: { 'x-api-key': key },
        payload: { items: range('dash', 30).map((externalId) => item({ externalId })) },
      });
      assert.equal(bulk.statusCode, 200);

      const res = await owner.get('/backup');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/vnd.sqlite3');
      assert.match(String(res.headers['content-disposition']), /^attachment; filename="localiq-backup-[a-z0-9-]+-[0-9a-f]{6}-\d{4}-\d\d-\d\dT[\d-]+\.db"$/);
      const file = path.join(tempDataDir(), 'downloaded.db');
      fs.writeFileSync(file, res.rawPayload);
      assert.deepEqual(jobIdsIn(file), range('cms-dash', 30));
      openBackup(file).close();
      assert.deepEqual(fs.readdirSync(path.join(t.dataDir, 'backup-downloads')), [], 'the copy is removed once sent');

      for (const role of ['admin', 'member'] as const) {
        const other = await signedInAs(owner, t.app, role);
        const refused = await other.get('/backup');
        assert.equal(refused.statusCode, 403, role);
        assert.equal(refused.json().code, 'forbidden');
      }
      const anonymous = await new AdminClient(t.app).get('/backup');
      assert.equal(anonymous.statusCode, 401);
    } finally {
      await t.close();
    }
  });

  it('a backup on its thread stopped while it copies leaves no .partial behind', async () => {
    const dataDir = tempDataDir();
    const db = openDatabase(dataDir);
    // Enough pages that the copy is under way for a while once its .partial appears.
    db.exec('CREATE TABLE filler (b BLOB); INSERT INTO filler VALUES (zeroblob(50000000))');
    db.close();
    const folder = tempDataDir();
    const target = path.join(folder, 'b.db');
    const stopping = new AbortController();
    const backup = backupInThread(dataDir, target, stopping.signal);
    while (!fs.existsSync(`${target}.partial`)) await new Promise((resolve) => setImmediate(resolve));
    stopping.abort();
    await assert.rejects(backup, /The backup was stopped: LocalIQ is closing\./);
    assert.deepEqual(fs.readdirSync(folder), []);
    fs.rmSync(dataDir, { recursive: true });
  });

  it('closing the server stops a download under way, which answers 503 and leaves no file', async () => {
    const t = await createTestApp();
    try {
      const owner = new AdminClient(t.app);
      assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
      const downloads = path.join(t.dataDir, 'backup-downloads');
      const download = owner.get('/backup');
      // The folder is made just before the backup thread starts, which takes far longer to load.
      while (!fs.existsSync(downloads)) await new Promise((resolve) => setImmediate(resolve));
      await t.app.close();
      const res = await download;
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.json().code, 'service_unavailable');
      assert.deepEqual(fs.readdirSync(downloads), [], 'neither the copy nor its .partial is left');
    } finally {
      await t.close();
    }
  });

  it('a database an earlier version left readable by others is made owner-only when opened', () => {
    const folder = tempDataDir();
    openDatabase(folder).close();
    const file = path.join(folder, 'localiq.db');
    fs.chmodSync(file, 0o644);
    openDatabase(folder).close();
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });
});
