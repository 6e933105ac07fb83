import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IngestItem } from '../../../../../common/contract/ingest.ts';
import { contentHash, jobIdSplits } from '../../../../../server/domain/jobs.ts';
import { openDatabase, type Db } from '../../../../../server/storage/db.ts';
import { IndexRepo } from '../../../../../server/storage/index-repo.ts';
import { ItemRepo } from '../../../../../server/storage/item-repo.ts';
import { fileItem } from '../../../../../server/domain/file-items.ts';
import { CLAIM_ORDER_SQL } from '../../../../../server/storage/jobs/claim.ts';
import { COUNT_QUEUED_UP_TO_SQL, JobRepo } from '../../../../../server/storage/jobs/job-repo.ts';
import { JobRuns } from '../../../../../server/storage/jobs/job-runs.ts';
import { VectorStore } from '../../../../../server/storage/vector-store.ts';
import { item, tempDataDir } from '../../../../helpers/temp-data.ts';

const MODEL = 'test-model';

/** Indexes the item's current content as the given model would have. */
function indexed(db: Db, pushed: IngestItem, model = MODEL): void {
  const index = new IndexRepo(db, new VectorStore(db, model, 4));
  db.transaction(() =>
    index.writeItem(
      {
        knowledgeBaseId: pushed.knowledgeBaseId, integrationId: pushed.integrationId, externalId: pushed.externalId,
        sourceType: pushed.sourceType, title: 'title', content: 'content', text: 'text', url: null, sourceData: null,
        contentHash: contentHash(pushed), seq: 1, embedderId: model, chunks: [],
      },
      Date.now(),
    ),
  )();
}

function statusOf(db: Db, externalId: string): string[] {
  return (db.prepare('SELECT status FROM jobs WHERE external_id = ? ORDER BY id').all(externalId) as Array<{ status: string }>).map((r) => r.status);
}

function skippedCount(db: Db, knowledgeBaseId: string): number {
  const row = db
    .prepare("SELECT coalesce(sum(value), 0) AS n FROM usage_counts WHERE metric = 'jobs_skipped' AND knowledge_base_id = ?")
    .get(knowledgeBaseId) as { n: number };
  return row.n;
}

describe('job repository', () => {
  it('skips content the active model already indexed, unless forced, re-queued or under way, and counts skips per push', () => {
    const db = openDatabase(tempDataDir());
    const repo = new JobRepo(db);
    const push = (items: IngestItem[], activeModelId: string | null = MODEL) =>
      repo.enqueue([{ items, apiKeyId: 'key-1' }], { now: Date.now(), maxAttempts: 3, activeModelId });
    const items = ['a', 'b', 'c'].map((id) => item({ externalId: id }) as IngestItem);
    for (const pushed of items) indexed(db, pushed);

    // Unchanged and indexed by the active model: settled at once, counted once per push.
    push(items);
    for (const pushed of items) assert.deepEqual(statusOf(db, pushed.externalId), ['skipped']);
    assert.equal(skippedCount(db, 'kb-main'), 3);
    push(items.slice(0, 2));
    assert.equal(skippedCount(db, 'kb-main'), 5);

    // No model active yet, another model, changed content or forceRefresh: queued.
    push([item({ externalId: 'a' }) as IngestItem], null);
    assert.deepEqual(statusOf(db, 'a'), ['skipped', 'skipped', 'queued']);
    push([item({ externalId: 'b' }) as IngestItem], 'other-model');
    assert.deepEqual(statusOf(db, 'b'), ['skipped', 'skipped', 'queued']);
    push([{ ...(item({ externalId: 'c' }) as IngestItem), options: { forceRefresh: true } }]);
    assert.deepEqual(statusOf(db, 'c'), ['skipped', 'queued']);

    // A queued job takes the new push in place, even of unchanged content.
    push([item({ externalId: 'a' }) as IngestItem]);
    assert.deepEqual(statusOf(db, 'a'), ['skipped', 'skipped', 'queued']);

    // While a run of the item is under way, unchanged content is queued: the run may be indexing
    // something else.
    const d = item({ externalId: 'd' }) as IngestItem;
    indexed(db, d);
    db.prepare(
      `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data, content_hash,
         force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at, created_at, updated_at)
       VALUES ('cms-d', 'kb-main', 'cms', 'd', 'ARTICLE', '{}', 'x', 0, 1, 99, 0, 0, 'processing', 3, 0, 0, 0)`,
    ).run();
    push([d]);
    assert.deepEqual(statusOf(db, 'd'), ['processing', 'queued']);
    assert.equal(skippedCount(db, 'kb-main'), 5);
    db.close();
  });

  it('finds the latest job of every item a jobId can name, however its hyphens split it', () => {
    assert.deepEqual(jobIdSplits('shop-sku-1'), [['shop', 'sku-1'], ['shop-sku', '1']]);
    assert.deepEqual(jobIdSplits('nohyphen'), []);
    const db = openDatabase(tempDataDir());
    const repo = new JobRepo(db);
    const push = (fields: Partial<IngestItem>) =>
      repo.enqueue([{ items: [item(fields) as IngestItem], apiKeyId: null }], { now: Date.now(), maxAttempts: 3, activeModelId: null });
    push({ integrationId: 'shop', externalId: 'sku-1' });
    push({ integrationId: 'shop-sku', externalId: '1' });
    push({ integrationId: 'shop-sku', externalId: '1', knowledgeBaseId: 'kb-other' });
    push({ integrationId: 'shop', externalId: 'sku-2' });
    // After a run of shop/sku-1, pushing it again adds a second job: the lookup answers the newer.
    db.prepare("UPDATE jobs SET status = 'succeeded' WHERE integration_id = 'shop' AND external_id = 'sku-1'").run();
    push({ integrationId: 'shop', externalId: 'sku-1' });

    const found = repo.latestForJobId('shop-sku-1').map((job) => [job.knowledgeBaseId, job.integrationId, job.externalId, job.status]);
    assert.deepEqual(found, [
      ['kb-main', 'shop', 'sku-1', 'queued'],
      ['kb-other', 'shop-sku', '1', 'queued'],
      ['kb-main', 'shop-sku', '1', 'queued'],
    ]);
    assert.deepEqual(repo.latestForJobId('shop-sku-3'), []);
    assert.deepEqual(repo.latestForJobId('shop'), []);
    db.close();
  });

  it('drops the payload of a job once it settles and keeps it while the job may still run', () => {
    const db = openDatabase(tempDataDir());
    const repo = new JobRepo(db);
    const runs = new JobRuns(db);
    const push = (externalId: string, activeModelId: string | null = null) =>
      repo.enqueue([{ items: [item({ externalId }) as IngestItem], apiKeyId: null }], { now: Date.now(), maxAttempts: 2, activeModelId });
    const dataOf = (externalId: string) =>
      (db.prepare('SELECT status, data FROM jobs WHERE external_id = ? ORDER BY id').all(externalId) as Array<{ status: string; data: string }>).map(
        (row) => [row.status, row.data === '{}' ? 'dropped' : (JSON.parse(row.data) as { title: string }).title],
      );
    for (const id of ['done', 'retrying', 'failing', 'superseded', 'deleted']) push(id);
    const claimed = new Map(runs.claim(4, Date.now()).map((job) => [job.externalId, job]));
    runs.finish(claimed.get('done')!.id, 'succeeded', Date.now());
    runs.recordFailure(claimed.get('retrying')!, 'boom', Date.now());
    runs.recordFailure({ ...claimed.get('failing')!, attempts: 2 }, 'boom', Date.now());
    push('superseded');
    runs.recordFailure(claimed.get('superseded')!, 'boom', Date.now());
    new ItemRepo(db).delete({ knowledgeBaseId: 'kb-main', integrationId: 'cms', externalId: 'deleted' }, Date.now(), { keyId: 'test-key' });
    indexed(db, item({ externalId: 'unchanged' }) as IngestItem);
    push('unchanged', MODEL);

    assert.deepEqual(dataOf('done'), [['succeeded', 'dropped']]);
    assert.deepEqual(dataOf('retrying'), [['queued', 'Opening hours']]);
    assert.deepEqual(dataOf('failing'), [['failed', 'Opening hours']]);
    assert.deepEqual(dataOf('superseded'), [['cancelled', 'dropped'], ['queued', 'Opening hours']]);
    assert.deepEqual(dataOf('deleted'), [['cancelled', 'dropped']]);
    assert.deepEqual(dataOf('unchanged'), [['skipped', 'dropped']]);
    // A failed job retried runs with its payload.
    const failed = db.prepare("SELECT id FROM jobs WHERE external_id = 'failing'").get() as { id: number };
    assert.ok(repo.retry(failed.id, Date.now()));
    assert.deepEqual(dataOf('failing'), [['queued', 'Opening hours']]);
    db.close();
  });

  it('a fresh single edit overtakes a bulk backlog, and two integrations take turns', () => {
    const db = openDatabase(tempDataDir());
    const repo = new JobRepo(db);
    const runs = new JobRuns(db);
    const t0 = Date.now();
    // The pipeline's rate as the queue would have measured it: 4,000 cost units a second.
    const push = (items: Array<Record<string, unknown>>, now: number) =>
      repo.enqueue([{ items: items.map((fields) => item(fields) as IngestItem), apiKeyId: null }], {
        now, maxAttempts: 3, activeModelId: null, msPerCost: 0.25,
      });
    const bulk = (integrationId: string, n: number) => Array.from({ length: n }, (_, i) => ({ integrationId, externalId: `${integrationId}-${i}` }));
    for (let i = 0; i < 2_000; i += 500) push(bulk('import', 2_000).slice(i, i + 500), t0);
    // A worker took the first batch; two seconds later (about 8 items' work), an edit and a bulk
    // of another integration come in.
    assert.equal(runs.claim(8, t0).length, 8);
    push([{ integrationId: 'import', externalId: 'price-change' }], t0 + 2_000);
    push(bulk('crm', 100), t0 + 2_000);

    const claimed = runs.claim(8, t0 + 2_000).map((job) => job.externalId);
    assert.ok(claimed.includes('price-change'), `the edit is in the first claim: ${claimed.join(', ')}`);
    const next = Array.from({ length: 10 }, () => runs.claim(8, t0 + 2_000)).flat();
    const from = (integrationId: string) => next.filter((job) => job.integrationId === integrationId).length;
    assert.ok(Math.abs(from('import') - from('crm')) <= 8, `taken turn about: import ${from('import')}, crm ${from('crm')}`);
    db.close();
  });

  it('a claim takes a large item alone, so small jobs do not wait in its batch', () => {
    const db = openDatabase(tempDataDir());
    const repo = new JobRepo(db);
    const runs = new JobRuns(db);
    const large = item({ integrationId: 'archive', externalId: 'manual' }, { content: 'page '.repeat(5_000) }) as IngestItem;
    const small = ['a', 'b'].map((id) => item({ externalId: id }) as IngestItem);
    repo.enqueue([{ items: [large, ...small], apiKeyId: null }], { now: Date.now(), maxAttempts: 3, activeModelId: null });
    assert.deepEqual(runs.claim(8, Date.now()).map((job) => job.externalId), ['manual']);
    assert.deepEqual(runs.claim(8, Date.now()).map((job) => job.externalId).sort(), ['a', 'b']);
    db.close();
  });

  it('a claim counts an uploaded file by its size: a large one goes alone, small ones share a batch', () => {
    const db = openDatabase(tempDataDir());
    const repo = new JobRepo(db);
    const runs = new JobRuns(db);
    const uploaded = (name: string, bytes: number) =>
      fileItem('kb-main', { integrationId: 'files', sourceType: 'PAGE' }, { sha256: name.padEnd(64, '0').replace(/[^0-9a-f]/g, '0'), name, bytes }, name);
    const now = Date.now();
    repo.enqueue([{ items: [uploaded('big.pdf', 8_000_000), uploaded('a.md', 2_000), uploaded('b.md', 3_000)], apiKeyId: null }], {
      now, maxAttempts: 3, activeModelId: null,
    });
    assert.deepEqual(runs.claim(8, now).map((job) => job.externalId), ['big.pdf']);
    assert.deepEqual(runs.claim(8, now).map((job) => job.externalId).sort(), ['a.md', 'b.md']);
    db.close();
  });

  it('claims and counts the queue from the claim-order index, never by reading every queued job', () => {
    const db = openDatabase(tempDataDir());
    const plan = (sql: string, ...params: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail).join(' / ');
    const claim = plan(CLAIM_ORDER_SQL, { now: 0, limit: 1 });
    assert.match(claim, /jobs_claim_order/);
    assert.doesNotMatch(claim, /TEMP B-TREE/);
    assert.match(plan(COUNT_QUEUED_UP_TO_SQL, 0), /COVERING INDEX jobs_claim_order/);
    db.close();
  });
});
