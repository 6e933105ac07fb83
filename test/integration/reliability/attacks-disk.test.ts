/**
 * The attack table for a full disk: a real `localiq serve` with its pipeline, its data folder on a
 * small tmpfs filled to the brim. Pushes are refused with 507 insufficient_storage (nothing of them
 * stored), the pipeline pauses instead of failing jobs or restarting its worker, carries on by
 * itself once space returns, and the server stops promptly meanwhile. Mounting a tmpfs needs root:
 * elsewhere the test says so and is skipped.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../../server/storage/db.ts';
import { CLI, cliEnv, startServerProcess, waitForExit, type ServerProcess } from '../../helpers/server-process.ts';
import { AdminClient } from '../../helpers/admin-client.ts';
import { createTestApp } from '../../helpers/test-app.ts';
import { FIXTURE, checkErrorShape } from './helpers/fixture.ts';
import { suiteSkipWhereMissing } from '../../helpers/skip-where-missing.ts';

/** A fresh 40 MB tmpfs, or null where mounting is not allowed (then the suites are skipped). */
function smallDisk(): string | null {
  const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=40m', 'tmpfs', mount], { stdio: 'ignore' });
    return mount;
  } catch {
    return null;
  }
}

const MOUNT = smallDisk();
const mounted = MOUNT !== null;
const freeBytes = () => {
  const { bavail, bsize } = fs.statfsSync(MOUNT!);
  return bavail * bsize;
};

describe('attack table: the data folder\'s disk fills up', { skip: suiteSkipWhereMissing(mounted, 'mounting a tmpfs needs root'), timeout: 420_000 }, () => {
  const dataDir = path.join(MOUNT!, 'data');
  const filler = path.join(MOUNT!, 'filler');
  let server: ServerProcess;
  let key: string;
  let acknowledged = 0;
  before(async () => {
    fs.mkdirSync(dataDir, { mode: 0o700 });
    key = JSON.parse(
      execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'disk', '--scopes', 'iq:import,iq:read', '--json'], { env: cliEnv(dataDir) }).toString(),
    ).value;
    server = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1', LOCALIQ_LOG_LEVEL: 'info' });
  });
  after(async () => {
    if (server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await waitForExit(server.child);
    }
  });

  const push = (n: number) =>
    fetch(`${server.url}/ingest`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        integrationId: 'shop',
        knowledgeBaseId: 'kb-disk',
        sourceType: 'ARTICLE',
        externalId: `item-${n}`,
        data: { title: `Item ${n}`, content: `Item ${n} is about ${'gardening tools and seeds, '.repeat(400)}` },
      }),
    });

  it('pushes are answered 507 insufficient_storage once the disk is full', async () => {
    // Leave about 2 MB: the pushes and the pipeline fill the rest.
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes() - 2_000_000)));
    let refused: Response | null = null;
    for (let n = 0; n < 2_000 && !refused; n++) {
      const res = await push(n);
      if (res.status === 200) acknowledged++;
      else refused = res;
    }
    assert.ok(refused, 'no push was refused');
    assert.equal(refused.status, 507);
    const text = await refused.text();
    const headers = { 'content-type': refused.headers.get('content-type') ?? '', 'x-request-id': refused.headers.get('x-request-id') ?? '' };
    const shape = checkErrorShape(refused.status, headers, text);
    assert.ok(shape.ok, shape.ok ? '' : shape.problem);
    assert.equal(JSON.parse(text).code, 'insufficient_storage');
    assert.match(JSON.parse(text).message, /disk .* is full.*Free space/);
    assert.ok(acknowledged > 0);
  });

  it('the pipeline pauses (no worker restarts, no job failed) and goes on by itself once there is room', async () => {
    const deadline = Date.now() + 60_000;
    while (!/processing is paused/.test(server.output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.match(server.output(), /processing is paused until there is room/);
    fs.rmSync(filler);
    const db = openDatabase(dataDir);
    try {
      const counts = () => db.prepare('SELECT status, count(*) AS n FROM jobs GROUP BY status').all() as Array<{ status: string; n: number }>;
      const settled = () => counts().every((c) => c.status === 'succeeded');
      // Polled, with room for a machine busy with other work: the test is about what ends, not how fast.
      const settleBy = Date.now() + 240_000;
      while (!settled() && Date.now() < settleBy) await new Promise((r) => setTimeout(r, 250));
      assert.deepEqual(counts(), [{ status: 'succeeded', n: acknowledged }], 'every acknowledged job processed, none failed');
    } finally {
      db.close();
    }
    assert.match(server.output(), /The disk has room again: processing goes on/);
    assert.doesNotMatch(server.output(), /starting a new one|pipeline worker failed/);
  });

  it('a stop while the disk is full is prompt', async () => {
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes() - 500_000)));
    for (let n = 10_000; n < 10_200; n++) if ((await push(n)).status !== 200) break;
    const started = Date.now();
    server.child.kill('SIGTERM');
    await waitForExit(server.child);
    assert.ok(Date.now() - started < 10_000, `stopping took ${Date.now() - started} ms`);
    assert.match(server.output(), /LocalIQ stopped\./);
  });

  it('the dashboard is told, on every screen, while the disk is full', async () => {
    fs.rmSync(filler);
    const t = await createTestApp({ rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } }, path.join(MOUNT!, 'in-process'));
    try {
      const owner = new AdminClient(t.app);
      assert.equal((await owner.post('/setup', { username: 'owner', password: 'owner password 1' })).statusCode, 201);
      assert.equal((await owner.get('/disk')).json().full, false);
      fs.writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes() - 500_000)));
      const key = t.key();
      let status = 200;
      for (let n = 0; n < 500 && status === 200; n++) {
        status = (await t.app.inject({ method: 'POST', url: '/ingest', headers: { 'x-api-key': key }, payload: FIXTURE.item({ externalId: `x-${n}` }, { content: 'seeds '.repeat(2_000) }) })).statusCode;
      }
      assert.equal(status, 507);
      const disk = (await owner.get('/disk')).json();
      assert.equal(disk.full, true);
      assert.match(disk.message, /is full: pushes are refused with 507/);
      assert.ok(disk.freeBytes < 1_000_000);
    } finally {
      await t.close();
    }
  });
});

after(async () => {
  if (!MOUNT) return;
  // A worker thread of the last server may still hold a file on the disk for a moment after close:
  // wait for it, then detach the disk lazily (freed when the last file closes) rather than fail.
  for (let tries = 0; tries < 25; tries++) {
    try {
      execFileSync('umount', [MOUNT], { stdio: 'ignore' });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  execFileSync('umount', ['--lazy', MOUNT]);
});
