import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { openDatabase } from '../../server/storage/db.ts';
import { CLI, cliEnv, startServerProcess, waitForExit } from '../helpers/server-process.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

const ITEMS = 300;
const TOPICS = ['invoices', 'delivery', 'warranty', 'opening hours', 'gift cards', 'repairs', 'parking', 'returns'];

function bulk(round: number, size: number) {
  return {
    items: Array.from({ length: size }, (_, i) => ({
      integrationId: 'crash',
      knowledgeBaseId: 'kb-crash',
      sourceType: 'PAGE',
      externalId: `page-${i}`,
      data: {
        title: `Page ${i} about ${TOPICS[i % TOPICS.length]}`,
        content: `Version ${round}. This page explains ${TOPICS[i % TOPICS.length]} for customers. `.repeat(3),
      },
    })),
  };
}

function checkIndex(dataDir: string) {
  const db = openDatabase(dataDir);
  try {
    const q = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const vecTable = (db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'chunk_vectors_%' AND sql LIKE '%vec0%'").get() as { name: string }).name;
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      items: q('SELECT count(*) AS n FROM items'),
      chunks: q('SELECT count(*) AS n FROM chunks'),
      declaredChunks: q('SELECT coalesce(sum(chunk_count), 0) AS n FROM items'),
      itemFts: q('SELECT count(*) AS n FROM items_fts'),
      chunkFts: q('SELECT count(*) AS n FROM chunks_fts'),
      vectors: q(`SELECT count(*) AS n FROM ${vecTable}`),
      stale: q("SELECT count(*) AS n FROM items WHERE content NOT LIKE 'Version 2.%'"),
      pending: q("SELECT count(*) AS n FROM jobs WHERE status IN ('queued', 'processing')"),
    };
  } finally {
    db.close();
  }
}

describe('crash during processing', () => {
  it('kill -9 mid-pipeline, then restart: every acknowledged item indexed exactly once, latest content', async () => {
    const dataDir = tempDataDir();
    const key = JSON.parse(
      execFileSync(process.execPath, [CLI, 'keys', 'create', '--name', 'crash', '--scopes', 'iq:import', '--json'], {
        env: cliEnv(dataDir),
      }).toString(),
    ).value;
    const push = async (url: string, round: number) => {
      const res = await fetch(`${url}/ingest/bulk`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(bulk(round, ITEMS)),
      });
      assert.equal(res.status, 200);
    };

    const first = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1', LOCALIQ_BATCH_JOBS: '4' });
    await push(first.url, 1);
    await push(first.url, 2);
    // Pull the plug once the workers are in the middle of the work.
    const started = Date.now();
    while (Date.now() - started < 60_000) {
      const now = checkIndex(dataDir);
      if (now.items >= 10 && now.pending > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill('SIGKILL');
    await waitForExit(first.child);
    const mid = checkIndex(dataDir);
    assert.ok(mid.pending! > 0, 'the kill happened while work was pending');

    const second = await startServerProcess(dataDir, { LOCALIQ_WORKERS: '1' });
    const deadline = Date.now() + 120_000;
    while (checkIndex(dataDir).pending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    second.child.kill('SIGTERM');
    await waitForExit(second.child);

    const end = checkIndex(dataDir);
    assert.equal(end.integrity, 'ok');
    assert.equal(end.pending, 0);
    assert.equal(end.items, ITEMS, 'each item exactly once');
    assert.equal(end.stale, 0, 'every item holds its latest version');
    assert.equal(end.chunks, end.declaredChunks);
    assert.equal(end.itemFts, end.items);
    assert.equal(end.chunkFts, end.chunks);
    assert.equal(end.vectors, end.chunks);
  });
});
