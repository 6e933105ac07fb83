import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { openDatabase } from '../../server/storage/db.ts';
import { CLI, cliEnv, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { item, tempDataDir } from '../helpers/temp-data.ts';

describe('durability of acknowledged jobs', () => {
  it('a restarted app keeps every acknowledged job', async () => {
    const dataDir = tempDataDir();
    const first = await createTestApp({}, dataDir);
    const key = first.key({ scopes: ['iq:import'] });
    const items = Array.from({ length: 50 }, (_, i) => item({ externalId: `keep-${i}` }));
    const res = await first.app.inject({ method: 'POST', url: '/ingest/bulk', headers: { 'x-api-key': key }, payload: { items } });
    assert.equal(res.statusCode, 200);
    await first.close();

    const second = await createTestApp({}, dataDir);
    const list = await second.app.inject({ method: 'GET', url: '/jobs?limit=500', headers: { 'x-api-key': key } });
    assert.equal(list.statusCode, 200, 'the key itself survived the restart');
    assert.deepEqual(
      list.json().data.map((j: { externalId: string }) => j.externalId).sort(),
      items.map((i) => i.externalId).sort(),
    );
    await second.close();
  });

  it('kill -9 during a stream of pushes loses no acknowledged job', async () => {
    const dataDir = tempDataDir();
    const created = JSON.parse(
      execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'crash', '--scopes', 'iq:import', '--json'], {
        env: cliEnv(dataDir),
      }).toString(),
    );
    const server = await startServerProcess(dataDir);
    const acknowledged = new Set<string>();
    // The kill comes once a few pushes are through (or answered at all), while others are under way.
    let enough!: () => void;
    const enoughPushed = new Promise<void>((resolve) => (enough = resolve));
    let sent = 0;
    let answered = 0;
    const pushOne = async (n: number) => {
      const res = await fetch(`${server.url}/ingest/bulk`, {
        method: 'POST',
        headers: { 'x-api-key': created.value, 'content-type': 'application/json' },
        body: JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => item({ externalId: `c-${n}-${i}` })) }),
      });
      if (res.status === 200) for (const id of (await res.json()).jobIds) acknowledged.add(id);
      if (acknowledged.size >= 100 || ++answered >= 50) enough();
    };
    const workers = Array.from({ length: 4 }, async () => {
      while (server.child.exitCode === null && server.child.signalCode === null) {
        await pushOne(sent++).catch(() => undefined);
      }
    });
    await Promise.race([enoughPushed, Promise.all(workers)]);
    server.child.kill('SIGKILL');
    await waitForExit(server.child);
    await Promise.all(workers);
    assert.ok(acknowledged.size > 0, 'some pushes were acknowledged before the kill');

    const db = openDatabase(dataDir);
    const stored = new Set(
      (db.prepare('SELECT job_id FROM jobs').all() as Array<{ job_id: string }>).map((r) => r.job_id),
    );
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
    const lost = [...acknowledged].filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.size} acknowledged jobs were lost`);
  });
});
