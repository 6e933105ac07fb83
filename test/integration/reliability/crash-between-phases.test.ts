/**
 * A crash between an item's two phases (docs/pipeline.md, "Two phases"): a real `localiq serve`
 * SIGKILLed while items have their text indexed and their vectors still to come. On restart the
 * embedding pass goes on from the stored text: every item ends complete, once, with one vector
 * per chunk and one keyword row per item and chunk; each item found by keyword search throughout.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { openDatabase } from '../../../server/storage/db.ts';
import { CLI, cliEnv, startServerProcess, waitForExit } from '../../helpers/server-process.ts';
import { tempDataDir } from '../../helpers/temp-data.ts';

const ITEMS = 200;
const KB = 'kb-phases';

function page(i: number) {
  return {
    integrationId: 'crash',
    knowledgeBaseId: KB,
    sourceType: 'PAGE',
    externalId: `page-${i}`,
    data: { title: `Page ${i}`, content: `Page ${i} holds the marker zqphase${i} and explains delivery times for customers in region ${i % 9}.` },
  };
}

function state(dataDir: string) {
  const db = openDatabase(dataDir);
  try {
    const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const vec = (db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'chunk_vectors_%' AND sql LIKE '%vec0%'").get() as { name: string } | undefined)?.name;
    return {
      integrity: String(db.pragma('integrity_check', { simple: true })),
      items: n('SELECT count(*) AS n FROM items'),
      textPhase: n("SELECT count(*) AS n FROM items WHERE indexing = 'text'"),
      chunks: n('SELECT count(*) AS n FROM chunks'),
      declaredChunks: n('SELECT coalesce(sum(chunk_count), 0) AS n FROM items'),
      itemFts: n('SELECT count(*) AS n FROM items_fts'),
      chunkFts: n('SELECT count(*) AS n FROM chunks_fts'),
      vectors: vec ? n(`SELECT count(*) AS n FROM ${vec}`) : 0,
      vectorsOfChunks: vec ? n(`SELECT count(*) AS n FROM chunks WHERE id IN (SELECT chunk_id FROM ${vec})`) : 0,
      pending: n("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'processing')"),
      succeeded: n("SELECT count(*) AS n FROM jobs WHERE status = 'succeeded'"),
      textPending: n('SELECT count(*) AS n FROM jobs WHERE text_pending <> 0'),
    };
  } finally {
    db.close();
  }
}

describe('crash between the two phases', () => {
  it('kill -9 while items wait for their vectors, then restart: the embedding pass goes on, nothing lost or indexed twice', { timeout: 300_000 }, async () => {
    const dataDir = tempDataDir();
    const key = JSON.parse(
      execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'crash', '--scopes', 'iq:import,iq:read', '--json'], { env: cliEnv(dataDir) }).toString(),
    ).value;
    const call = async (url: string, route: string, body: object) => {
      const res = await fetch(`${url}${route}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(res.status, 200, await res.clone().text());
      return res.json() as Promise<{ results?: Array<{ externalId: string }> }>;
    };

    const first = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1', LOCALIQ_BATCH_JOBS: '4' });
    await call(first.url, '/ingest/bulk', { items: Array.from({ length: ITEMS }, (_, i) => page(i)) });
    // Kill once every item's text is indexed and most still wait for their vectors.
    const deadline = Date.now() + 120_000;
    let mid = state(dataDir);
    while (Date.now() < deadline && !(mid.items === ITEMS && mid.textPhase > 0)) {
      await new Promise((r) => setTimeout(r, 20));
      mid = state(dataDir);
    }
    const last = await call(first.url, `/knowledge-bases/${KB}/search`, { query: `zqphase${ITEMS - 1}`, mode: 'keyword', topK: 1 });
    first.child.kill('SIGKILL');
    await waitForExit(first.child);
    mid = state(dataDir);
    assert.equal(mid.items, ITEMS, 'every item was stored by its text phase before the kill');
    assert.ok(mid.textPhase > 0 && mid.pending > 0, `the kill came between the phases (${mid.textPhase} item(s) waiting for vectors)`);
    assert.equal(last.results?.[0]?.externalId, `page-${ITEMS - 1}`, 'the last item pushed was found by keyword before it was embedded');
    assert.equal(mid.vectorsOfChunks, mid.vectors, 'no vector without its chunk');

    const second = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1' });
    // Keyword search finds what waits for its vectors at once after the restart.
    const waiting = await call(second.url, `/knowledge-bases/${KB}/search`, { query: `zqphase${ITEMS - 1}`, mode: 'keyword', topK: 1 });
    assert.equal(waiting.results?.[0]?.externalId, `page-${ITEMS - 1}`);
    const drainBy = Date.now() + 240_000;
    let end = state(dataDir);
    while (end.pending > 0 && Date.now() < drainBy) {
      await new Promise((r) => setTimeout(r, 250));
      end = state(dataDir);
    }
    const semantic = await call(second.url, `/knowledge-bases/${KB}/search`, { query: 'how long does delivery take in my region', mode: 'semantic', topK: 5 });
    second.child.kill('SIGTERM');
    await waitForExit(second.child);

    end = state(dataDir);
    assert.equal(end.integrity, 'ok');
    assert.equal(end.pending, 0);
    assert.equal(end.succeeded, ITEMS, 'every job succeeded, none twice');
    assert.equal(end.items, ITEMS, 'each item exactly once');
    assert.equal(end.textPhase, 0, 'every item got its vectors');
    assert.equal(end.textPending, 0);
    assert.equal(end.chunks, end.declaredChunks);
    assert.equal(end.itemFts, end.items, 'one keyword row per item');
    assert.equal(end.chunkFts, end.chunks, 'one keyword row per chunk');
    assert.equal(end.vectors, end.chunks, 'one vector per chunk');
    assert.equal(end.vectorsOfChunks, end.chunks);
    assert.ok((semantic.results ?? []).length > 0, 'semantic search finds the items embedded after the restart');
  });
});
