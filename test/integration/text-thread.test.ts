import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it } from 'node:test';
import { TextThread } from '../../server/pipeline/text-thread.ts';
import { prepareTextPhase } from '../../server/storage/jobs/text-phase.ts';
import { api, startPipelineServer } from '../helpers/pipeline-app.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * The text phase's own thread (docs/pipeline.md, "Two phases"): it writes pushed texts for keyword
 * search with no model loaded and no pipeline worker running, and the pipeline workers run at a
 * lower priority than the threads that serve search (docs/pipeline.md, "Queries while indexing").
 */
describe('the text phase thread', () => {
  let t: TestApp | null = null;
  let thread: TextThread | null = null;
  after(async () => {
    await thread?.stop();
    await t?.close();
  });

  it('makes pushed items searchable by keyword on its own, without the model: their vectors still wait for the workers', async () => {
    t = await createTestApp();
    t.services.embedding.activate('use-lite', 512);
    const key = t.key();
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await t!.app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
      return res.json();
    };
    const items = Array.from({ length: 40 }, (_, i) => ({
      integrationId: 'shop',
      knowledgeBaseId: 'kb',
      sourceType: 'PRODUCT',
      externalId: `loaf-${i}`,
      data: { title: `Loaf ${i}`, content: `Loaf ${i} is the zqloaf${i} of the bakery, baked every morning with flour of mill ${i % 7}.` },
    }));
    await call('POST', '/ingest/bulk', { items });
    let lost = 0;
    const textPhase = prepareTextPhase(t.services.db);
    thread = new TextThread({ dataDir: t.dataDir, embedder: { kind: 'use-lite' }, dimension: 512, overlapTokens: 8, onLost: () => (lost += textPhase.release()) });
    await thread.start();

    const words = items.map((_, i) => `zqloaf${i}`);
    const found = new Set<string>();
    const deadline = Date.now() + 60_000;
    while (found.size < items.length && Date.now() < deadline) {
      const res = await call('POST', '/knowledge-bases/kb/search', { query: words.join(' '), mode: 'keyword', topK: 50 });
      for (const hit of res.results as Array<{ externalId: string }>) found.add(hit.externalId);
      if (found.size < items.length) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(found.size, items.length, 'every pushed item is found by keyword');
    const state = await call('GET', '/knowledge-bases/kb/items/shop/loaf-7');
    assert.equal(state.indexing, 'text', 'written by its text phase only');
    assert.equal(state.latestJob.status, 'queued', 'the job still waits for the embedding pass');
    const pending = t.services.db.prepare('SELECT count(*) AS n FROM jobs WHERE text_pending <> 0').get() as { n: number };
    assert.equal(pending.n, 0, 'no text phase waits or is held');

    // A push later wakes it at once (well before its idle sleep would end, under load too).
    await call('POST', '/ingest', { ...items[0], externalId: 'late', data: { title: 'Late', content: 'A zqlate loaf pushed last.' } });
    const lateDeadline = Date.now() + 30_000;
    let lateFound = false;
    while (!lateFound && Date.now() < lateDeadline) {
      thread.wake();
      const res = await call('POST', '/knowledge-bases/kb/search', { query: 'zqlate', mode: 'keyword', topK: 5 });
      lateFound = (res.results as unknown[]).length === 1;
      if (!lateFound) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(lateFound, 'a later push is found too');
    assert.equal(lost, 0, 'the thread never died');
  });
});

describe('pipeline worker priority', () => {
  const linux = fs.existsSync('/proc/self/task');
  it('each pipeline worker thread runs at a lower priority (nice 10); the server thread keeps the default', { skip: !linux && 'per-thread nice is read from /proc' }, async () => {
    const server = await startPipelineServer({ workers: 1 });
    try {
      // The worker sets it first thing: wait for it (the server says ready once the model is loaded).
      const nices = () =>
        fs.readdirSync('/proc/self/task').map((tid) => {
          const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
          return { tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
        });
      const threads = nices();
      assert.equal(threads.find((thread) => thread.tid === process.pid)?.nice, 0, 'the server thread runs at the default priority');
      assert.equal(threads.filter((thread) => thread.nice === 10).length, 1, 'the one pipeline worker runs at nice 10');
      assert.equal((await api(server, 'GET', '/health')).status, 200);
    } finally {
      await server.stop();
    }
  });
});
