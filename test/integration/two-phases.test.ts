import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createEmbedder } from '../../server/embedders/index.ts';
import type { Embedder } from '../../server/embedders/embedder.ts';
import { processBatch, type PipelineDeps } from '../../server/pipeline/process-batch.ts';
import { runTextPass } from '../../server/pipeline/text-pass.ts';
import { IndexRepo } from '../../server/storage/index-repo.ts';
import { JobRuns } from '../../server/storage/jobs/job-runs.ts';
import { prepareTextPhase } from '../../server/storage/jobs/text-phase.ts';
import { VectorStore } from '../../server/storage/vector-store.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { prepareItemCommit, prepareTextCommit } from '../../server/storage/index-commits.ts';

/**
 * The two phases of an item (docs/pipeline.md, "Two phases") on the real app, database and model:
 * the text pass and the embedding pass are driven one step at a time, so what search shows
 * between them is checked, not raced.
 */
describe('two phases: text searchable at once, vectors after', () => {
  let embedder: Embedder;
  before(async () => {
    embedder = await createEmbedder({ kind: 'use-lite' });
  });
  after(() => embedder.close());

  async function setup() {
    const t = await createTestApp();
    t.services.embedding.activate(embedder.id, embedder.dimension);
    const key = t.key();
    const db = t.services.db;
    const store = new VectorStore(db, embedder.id, embedder.dimension);
    const index = new IndexRepo(db, store);
    const runs = new JobRuns(db);
    const deps: PipelineDeps = { db, runs, index, commitItem: prepareItemCommit(db, index, runs), embedder, overlapTokens: 8, clock: Date.now };
    const phase = prepareTextPhase(db);
    const text = { index, phase, commitTexts: prepareTextCommit(db, index, phase), embedder, overlapTokens: 8, clock: Date.now };
    const call = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => {
      const res = await t.app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload ? { payload } : {}) });
      return { status: res.statusCode, body: res.json() };
    };
    const push = (externalId: string, title: string, content: string) =>
      call('POST', '/ingest', { integrationId: 'cms', knowledgeBaseId: 'kb', sourceType: 'ARTICLE', externalId, data: { title, content } });
    const search = async (query: string, mode: 'keyword' | 'semantic' | 'hybrid') =>
      ((await call('POST', '/knowledge-bases/kb/search', { query, mode, topK: 10 })).body.results as Array<{ externalId: string; score: number }>);
    const textPass = () => runTextPass(text, 10_000);
    const embedPass = async () => {
      for (let jobs = deps.runs.claim(8, Date.now()); jobs.length > 0; jobs = deps.runs.claim(8, Date.now())) await processBatch(jobs, deps);
    };
    const state = async (externalId: string) => (await call('GET', `/knowledge-bases/kb/items/cms/${externalId}`)).body;
    const vectorsOf = (externalId: string) =>
      (db.prepare(`SELECT count(*) AS n FROM chunks c JOIN items i ON i.id = c.item_id JOIN ${store.table} v ON v.chunk_id = c.id WHERE i.external_id = ?`).get(externalId) as { n: number }).n;
    return { t, deps, push, search, textPass, embedPass, state, vectorsOf, call };
  }

  let t: TestApp | null = null;
  after(async () => t?.close());

  it('a pushed item is found by keyword and hybrid search after the text pass, by meaning once embedded; its state says which', async () => {
    const s = await setup();
    t = s.t;
    await s.push('hours', 'Opening hours', 'The bakery opens at seven on weekdays and closes at noon on Sundays.');
    assert.deepEqual(await s.search('bakery', 'keyword'), [], 'nothing before the text pass');
    assert.equal(s.textPass(), false, 'the text pass took every waiting job');
    assert.deepEqual((await s.search('bakery', 'keyword')).map((r) => r.externalId), ['hours']);
    assert.deepEqual((await s.search('when does the bakery open', 'hybrid')).map((r) => r.externalId), ['hours']);
    assert.deepEqual(await s.search('what time can I buy bread', 'semantic'), [], 'no vectors yet: semantic search cannot find it');
    const textOnly = await s.state('hours');
    assert.equal(textOnly.indexing, 'text');
    assert.equal(textOnly.latestJob.status, 'queued', 'the job waits for the embedding pass');
    assert.equal(s.vectorsOf('hours'), 0);

    await s.embedPass();
    const complete = await s.state('hours');
    assert.equal(complete.indexing, 'complete');
    assert.equal(complete.latestJob.status, 'succeeded');
    assert.deepEqual(complete.chunks.map((c: { id: number }) => c.id), textOnly.chunks.map((c: { id: number }) => c.id), 'the vectors were added to the chunks the text pass wrote');
    assert.equal(s.vectorsOf('hours'), complete.chunks.length);
    assert.deepEqual((await s.search('what time can I buy bread', 'semantic')).map((r) => r.externalId), ['hours']);
    await s.t.close();
    t = null;
  });

  it('an edit between the phases: keyword search shows only the new text, meaning only once it is embedded; unchanged passages keep their vectors', async () => {
    const s = await setup();
    t = s.t;
    const paragraphs = (last: string) =>
      [
        'Our sourdough is fermented for two days before baking, which gives it a deep sour flavour and a chewy crumb. The starter was begun by the founder forty years ago and is fed twice a day with rye flour and water from the well behind the house.',
        'Every loaf is baked in a stone oven at the back of the shop in the early morning, long before the doors open. The oven is heated with beech wood, and the bakers score each loaf by hand so that it rises evenly and forms a dark, crisp crust.',
        'Whole grain flour comes from a mill in the valley that has ground grain for a century. The miller visits every month, tastes the bread and adjusts the grind, and the farmers who grow the wheat are paid before the harvest is in.',
        last,
      ].join('\n\n');
    await s.push('bread', 'Sourdough', paragraphs('Returns of bread are refunded within thirty days with the receipt.'));
    s.textPass();
    await s.embedPass();
    const before = await s.state('bread');
    assert.ok(before.chunks.length >= 2, `a multi-passage item (${before.chunks.length} passage(s))`);

    await s.push('bread', 'Sourdough', paragraphs('Bread cannot be returned; we donate what is left to the shelter each evening.'));
    s.textPass();
    const between = await s.state('bread');
    assert.equal(between.indexing, 'text');
    assert.ok(!(await s.search('refunded receipt', 'keyword')).some((r) => r.externalId === 'bread'), 'the old text is gone from keyword search');
    assert.deepEqual((await s.search('shelter donate', 'keyword')).map((r) => r.externalId), ['bread']);
    const changed = between.chunks.filter((c: { text: string }) => !before.chunks.some((b: { text: string }) => b.text === c.text)).length;
    assert.ok(changed >= 1);
    assert.equal(s.vectorsOf('bread'), between.chunks.length - changed, 'vectors of unchanged passages carried over; none of the old text remains');

    const embedded = await processBatchReport(s);
    assert.equal(embedded, changed, 'only the changed passages were embedded');
    assert.equal((await s.state('bread')).indexing, 'complete');
    assert.equal(s.vectorsOf('bread'), between.chunks.length);
    await s.t.close();
    t = null;
  });

  async function processBatchReport(s: Awaited<ReturnType<typeof setup>>): Promise<number> {
    let embedded = 0;
    for (let jobs = s.deps.runs.claim(8, Date.now()); jobs.length > 0; jobs = s.deps.runs.claim(8, Date.now())) {
      embedded += (await processBatch(jobs, s.deps)).chunksEmbedded;
    }
    return embedded;
  }

  it('a delete between the phases removes the item from every search at once, and the embedding pass never brings it back', async () => {
    const s = await setup();
    t = s.t;
    await s.push('gift', 'Gift cards', 'Gift cards can be bought at the counter and are valid for three years.');
    s.textPass();
    const claimed = s.deps.runs.claim(8, Date.now());
    assert.equal(claimed.length, 1, 'the embedding pass holds the job when the delete comes');
    assert.equal((await s.call('DELETE', '/items/kb/cms/gift')).status, 200);
    assert.deepEqual(await s.search('gift cards', 'keyword'), []);
    assert.deepEqual(await s.search('gift cards', 'hybrid'), []);
    await processBatch(claimed, s.deps);
    assert.equal((await s.call('GET', '/knowledge-bases/kb/items/cms/gift')).status, 404);
    assert.deepEqual(await s.search('gift cards', 'keyword'), []);
    const rows = (sql: string) => (s.t.services.db.prepare(sql).get() as { n: number }).n;
    assert.deepEqual([rows('SELECT count(*) AS n FROM chunks'), rows('SELECT count(*) AS n FROM items_fts'), rows('SELECT count(*) AS n FROM chunks_fts')], [0, 0, 0]);
    await s.t.close();
    t = null;
  });

  it('an item left in its text phase by a job that failed is not skipped when pushed again unchanged: the push completes it', async () => {
    const s = await setup();
    t = s.t;
    await s.push('hours', 'Opening hours', 'Open from seven to noon.');
    s.textPass();
    const [job] = s.deps.runs.claim(8, Date.now());
    s.deps.runs.recordFailure(job!, 'the model failed', Date.now(), true);
    assert.equal((await s.state('hours')).indexing, 'text');
    const again = await s.push('hours', 'Opening hours', 'Open from seven to noon.');
    assert.equal(again.status, 200);
    assert.equal((await s.call('GET', '/jobs/cms-hours')).body.status, 'queued', 'not settled as skipped: its vectors are missing');
    await s.embedPass();
    assert.equal((await s.state('hours')).indexing, 'complete');
    assert.equal(s.vectorsOf('hours'), 1);
    await s.t.close();
    t = null;
  });

  it('hybrid search ranks an item still without vectors by its keywords: first when keyword search ranks it first, neither buried nor lifted', async () => {
    const s = await setup();
    t = s.t;
    await s.push('toaster', 'Crumpet toaster', 'Our crumpet toaster browns two crumpets at once; crumpets come out golden.');
    await s.push('butter', 'Butter for crumpets', 'Salted butter from the farm goes well on crumpets.');
    await s.push('jam', 'Strawberry jam', 'Homemade strawberry jam, also good on a crumpet.');
    s.textPass();
    await s.embedPass();
    await s.push('crumpets', 'Crumpets', 'Crumpets: fresh crumpets every morning, crumpets baked on a griddle, crumpets by the dozen.');
    s.textPass();
    assert.equal((await s.state('crumpets')).indexing, 'text');
    const keyword = await s.search('crumpets', 'keyword');
    assert.equal(keyword[0]!.externalId, 'crumpets', 'keyword search ranks the new item first');
    const hybrid = await s.search('crumpets', 'hybrid');
    assert.equal(hybrid[0]!.externalId, 'crumpets', JSON.stringify(hybrid));
    assert.ok(Math.abs(hybrid[0]!.score - 1) < 1e-9, `scored as the keyword side alone scores it, the best keyword score scaled to 1 (not 0.8, as if dissimilar): ${hybrid[0]!.score}`);
    assert.deepEqual(new Set(hybrid.map((r) => r.externalId)), new Set(keyword.map((r) => r.externalId)), 'every keyword hit is there, complete or not');
    // Once embedded, it is an item like the others: fused by both sides.
    await s.embedPass();
    assert.equal((await s.state('crumpets')).indexing, 'complete');
    assert.ok((await s.search('crumpets', 'hybrid')).some((r) => r.externalId === 'crumpets'));
    await s.t.close();
    t = null;
  });
});
