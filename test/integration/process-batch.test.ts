import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHash } from 'node:crypto';
import { fileItem } from '../../server/domain/file-items.ts';
import { FileExtractor } from '../../server/pipeline/extract/extractor.ts';
import { processBatch, type PipelineDeps } from '../../server/pipeline/process-batch.ts';
import { JobRepo } from '../../server/storage/jobs/job-repo.ts';
import type { Embedder } from '../../server/embedders/embedder.ts';
import { IndexRepo } from '../../server/storage/index-repo.ts';
import { JobRuns } from '../../server/storage/jobs/job-runs.ts';
import { VectorStore } from '../../server/storage/vector-store.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { item } from '../helpers/temp-data.ts';
import { prepareItemCommit } from '../../server/storage/index-commits.ts';

/**
 * A test double for the model, named as such: a deterministic bag-of-letters embedder that can
 * be told to fail, so the retry and failure rules are tested without waiting for the real model.
 */
function fakeEmbedder(options: { failTimes?: number } = {}): Embedder & { calls: number; texts: number } {
  let failures = options.failTimes ?? 0;
  const fake = {
    id: 'fake-letters',
    dimension: 26,
    maxTokens: 64,
    calls: 0,
    texts: 0,
    countTokens: (text: string) => text.split(/\s+/).filter(Boolean).length,
    async embed(texts: string[]) {
      fake.calls++;
      if (failures > 0) {
        failures--;
        throw new Error('model crashed');
      }
      fake.texts += texts.length;
      return texts.map((text) => {
        const v = new Float32Array(26);
        for (const c of text.toLowerCase()) if (c >= 'a' && c <= 'z') v[c.charCodeAt(0) - 97]! += 1;
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
    async close() {},
  };
  return fake;
}

async function setup(embedder: Embedder, now: { t: number }) {
  const t = await createTestApp();
  const key = t.key({ scopes: ['iq:import'] });
  const runs = new JobRuns(t.services.db);
  const index = new IndexRepo(t.services.db, new VectorStore(t.services.db, embedder.id, embedder.dimension));
  const deps: PipelineDeps = {
    db: t.services.db,
    runs,
    index,
    commitItem: prepareItemCommit(t.services.db, index, runs),
    embedder,
    overlapTokens: 4,
    clock: () => now.t,
  };
  // The test's clock catches up with the real one after each push, so pushed jobs are due.
  const push = async (items: object[]) => {
    await t.app.inject({ method: 'POST', url: '/ingest/bulk', headers: { 'x-api-key': key }, payload: { items } });
    now.t = Math.max(now.t, Date.now());
  };
  return { t, deps, push };
}

describe('processBatch', () => {
  it('retries with exponential backoff, then fails keeping every error', async () => {
    const now = { t: Date.now() };
    const embedder = fakeEmbedder({ failTimes: 99 });
    const { t, deps, push } = await setup(embedder, now);
    await push([item({ externalId: 'doomed' })]);
    const runAts: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const jobs = deps.runs.claim(8, now.t);
      assert.equal(jobs.length, 1, `attempt ${attempt} is claimable once due`);
      assert.equal(deps.runs.claim(8, now.t).length, 0, 'a claimed job is not claimed twice');
      await processBatch(jobs, deps);
      const row = t.services.jobs.get(jobs[0]!.id)!;
      if (attempt < 5) {
        assert.equal(row.status, 'queued');
        runAts.push(row.runAt - now.t);
        assert.equal(deps.runs.claim(8, now.t).length, 0, 'not claimable before its backoff has passed');
        now.t = row.runAt;
      } else {
        assert.equal(row.status, 'failed');
        assert.equal(row.attempts, 5);
        assert.match(row.lastError!, /model crashed/);
        assert.equal(row.errors.length, 5);
      }
    }
    assert.deepEqual(runAts, [2000, 4000, 8000, 16000]);
    await t.close();
  });

  it('a job that succeeds after a failed attempt has no last error: the failure stays in errors, as history', async () => {
    const now = { t: Date.now() };
    const { t, deps, push } = await setup(fakeEmbedder({ failTimes: 1 }), now);
    await push([item({ externalId: 'second-time' })]);
    const [job] = deps.runs.claim(8, now.t);
    await processBatch([job!], deps);
    const retrying = t.services.jobs.get(job!.id)!;
    assert.equal(retrying.status, 'queued');
    assert.match(retrying.lastError!, /model crashed/);
    now.t = retrying.runAt;
    await processBatch(deps.runs.claim(8, now.t), deps);
    const done = t.services.jobs.get(job!.id)!;
    assert.deepEqual([done.status, done.lastError, done.note], ['succeeded', null, null]);
    assert.deepEqual(done.errors.map((e) => e.attempt), [1]);
    assert.match(done.errors[0]!.message, /model crashed/);
    await t.close();
  });

  it("a file whose original is missing is tried once more (a racing re-upload puts it back), then fails with the reason", async () => {
    const now = { t: Date.now() };
    const { t, deps } = await setup(fakeEmbedder(), now);
    const extractor = new FileExtractor({ timeoutMs: 10_000, memoryMb: 128 });
    deps.files = { originals: t.services.originals, extractor };
    const sha256 = createHash('sha256').update('never kept').digest('hex');
    new JobRepo(t.services.db).enqueue(
      [{ items: [fileItem('kb-main', { integrationId: 'files', sourceType: 'PAGE' }, { sha256, name: 'gone.pdf', bytes: 10 }, 'gone.pdf')], apiKeyId: null }],
      { now: now.t, maxAttempts: 5, activeModelId: null },
    );
    const first = deps.runs.claim(8, now.t);
    await processBatch(first, deps);
    const retried = t.services.jobs.get(first[0]!.id)!;
    assert.equal(retried.status, 'queued', 'a second attempt after the backoff');
    assert.match(retried.lastError!, /gone\.pdf: the uploaded file is no longer in the data folder/);
    now.t = retried.runAt;
    await processBatch(deps.runs.claim(8, now.t), deps);
    const failed = t.services.jobs.get(first[0]!.id)!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attempts, 2, 'not the five attempts of a fault that may pass');
    await extractor.close();
    await t.close();
  });

  it('claims high before normal before low, FIFO within a level', async () => {
    const now = { t: Date.now() };
    const { t, deps, push } = await setup(fakeEmbedder(), now);
    await push([
      item({ externalId: 'low-1', options: { priority: 'low' } }),
      item({ externalId: 'normal-1' }),
      item({ externalId: 'high-1', options: { priority: 'high' } }),
      item({ externalId: 'normal-2' }),
      item({ externalId: 'high-2', options: { priority: 'high' } }),
    ]);
    const order = deps.runs.claim(10, now.t).map((j) => j.externalId);
    assert.deepEqual(order, ['high-1', 'high-2', 'normal-1', 'normal-2', 'low-1']);
    await t.close();
  });

  it('indexes, skips unchanged content, and never embeds the same chunk text twice', async () => {
    const now = { t: Date.now() };
    const embedder = fakeEmbedder();
    const { t, deps, push } = await setup(embedder, now);
    const items = [1, 2, 3].map((n) => item({ externalId: `doc-${n}` }, { title: 'Same title', content: `Shared sentence. Unique part ${'xyz'.repeat(n)}.` }));
    await push(items);
    const first = await processBatch(deps.runs.claim(10, now.t), deps);
    assert.equal(first.succeeded, 3);
    const embeddedOnce = embedder.texts;
    await push(items);
    const second = await processBatch(deps.runs.claim(10, now.t), deps);
    assert.equal(second.skipped, 3);
    assert.equal(embedder.texts, embeddedOnce, 'skipped items embed nothing');
    await push(items.map((i) => ({ ...i, options: { forceRefresh: true } })));
    const third = await processBatch(deps.runs.claim(10, now.t), deps);
    assert.equal(third.succeeded, 3);
    assert.equal(third.chunksEmbedded, 0);
    assert.ok(third.chunksFromCache > 0, 'forced reprocessing reuses the cached vectors');
    await t.close();
  });

  it('an older version finishing after a newer one never overwrites it', async () => {
    const now = { t: Date.now() };
    const { t, deps, push } = await setup(fakeEmbedder(), now);
    await push([item({ externalId: 'race' }, { content: 'old words' })]);
    const older = deps.runs.claim(1, now.t);
    await push([item({ externalId: 'race' }, { content: 'new words' })]);
    const newer = deps.runs.claim(1, now.t);
    await processBatch(newer, deps);
    await processBatch(older, deps);
    const stored = t.services.db.prepare("SELECT content FROM items WHERE external_id = 'race'").get() as { content: string };
    assert.equal(stored.content, 'new words');
    const cancelled = t.services.jobs.get(older[0]!.id)!;
    assert.deepEqual([cancelled.status, cancelled.note, cancelled.lastError], ['cancelled', 'superseded by a newer version', null]);
    await t.close();
  });
});
