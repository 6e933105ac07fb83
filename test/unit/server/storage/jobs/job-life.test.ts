import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IngestItem } from '../../../../../common/contract/ingest.ts';
import { DuplicateError } from '../../../../../server/domain/errors.ts';
import { AGING_MS, backoffMs, contentHash } from '../../../../../server/domain/jobs.ts';
import { openDatabase, type Db } from '../../../../../server/storage/db.ts';
import { IndexRepo } from '../../../../../server/storage/index-repo.ts';
import {
  prepareCancelOnDelete,
  prepareClaim,
  prepareEnqueue,
  prepareFail,
  prepareFinish,
  prepareRequeueAll,
  prepareRetry,
} from '../../../../../server/storage/jobs/index.ts';
import { type JobRow, toClaimedJob } from '../../../../../server/storage/jobs/job-row.ts';
import { VectorStore } from '../../../../../server/storage/vector-store.ts';
import { item, tempDataDir } from '../../../../helpers/temp-data.ts';

/** Each transition on a real database, at moments the test chooses. */
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const MAX_ATTEMPTS = 3;

/** Fail as the pipeline calls it: with the claimed row read as the domain's job. */
function failing(fail: ReturnType<typeof prepareFail>) {
  return (job: JobRow, message: string, now: number, final?: boolean, runAt?: number) => fail(toClaimedJob(job), message, now, final, runAt);
}

function setup() {
  const db = openDatabase(tempDataDir());
  const enqueue = prepareEnqueue(db);
  const push = (externalId: string, now = T0, fields: Partial<IngestItem> = {}) =>
    enqueue([{ items: [{ ...(item({ externalId }) as IngestItem), ...fields }], apiKeyId: null }], {
      now,
      maxAttempts: MAX_ATTEMPTS,
      activeModelId: null,
    })[0]!;
  const jobs = (externalId: string) => db.prepare('SELECT * FROM jobs WHERE external_id = ? ORDER BY id').all(externalId) as JobRow[];
  const latest = (externalId: string) => jobs(externalId).at(-1)!;
  return { db, push, jobs, latest, claim: prepareClaim(db), fail: failing(prepareFail(db)), finish: prepareFinish(db) };
}

function indexItem(db: Db, externalId: string): void {
  const pushed = item({ externalId }) as IngestItem;
  const index = new IndexRepo(db, new VectorStore(db, 'test-model', 4));
  db.transaction(() =>
    index.writeItem(
      {
        knowledgeBaseId: pushed.knowledgeBaseId, integrationId: pushed.integrationId, externalId, sourceType: pushed.sourceType,
        title: pushed.data.title, content: pushed.data.content, text: 'text', url: null, sourceData: null,
        contentHash: contentHash(pushed), seq: 1, embedderId: 'test-model', chunks: [],
      },
      T0,
    ),
  )();
}

describe('job life', () => {
  it('enqueue queues a new item; a push of an item still queued replaces its job and keeps its arrival', () => {
    const { db, push, jobs } = setup();
    const first = push('a', T0);
    const [job] = jobs('a');
    assert.equal(job!.status, 'queued');
    assert.equal(job!.run_at, T0);
    assert.equal(first.lastSortKey, T0 + AGING_MS); // normal priority: arrival + one level
    const again = push('a', T0 + 5_000, { options: { priority: 'high' } });
    assert.equal(jobs('a').length, 1, 'one queued job per item');
    assert.equal(jobs('a')[0]!.sort_key, T0, 'the first arrival, at the new priority');
    assert.equal(again.lastSortKey, T0);
    db.close();
  });

  it('claim takes the fairest due jobs in claim order, counting an attempt', () => {
    const { db, push, claim, latest } = setup();
    push('low', T0, { options: { priority: 'low' } });
    push('normal', T0 + 1_000);
    push('high', T0 + 2_000, { options: { priority: 'high' } });
    db.prepare("UPDATE jobs SET run_at = ? WHERE external_id = 'high'").run(T0 + 60_000);
    // 'high' is not due yet; 'normal' goes before 'low' pushed earlier.
    assert.deepEqual(claim(1, T0 + 3_000).map((job) => job.external_id), ['normal']);
    const normal = latest('normal');
    assert.equal(normal.status, 'processing');
    assert.equal(normal.attempts, 1);
    assert.equal(normal.started_at, T0 + 3_000);
    // Once due, high goes first; a low job that waited long enough overtakes a fresh normal one.
    push('fresh', T0 + 2 * AGING_MS);
    assert.deepEqual(claim(3, T0 + 2 * AGING_MS).map((job) => job.external_id), ['high', 'low', 'fresh']);
    assert.deepEqual(claim(3, T0 + 2 * AGING_MS), []);
    db.close();
  });

  it('finish ends a run and drops the payload, and leaves a job no longer processing alone', () => {
    const { db, push, claim, finish, latest } = setup();
    push('a');
    const [job] = claim(1, T0);
    finish(job!.id, 'cancelled', T0 + 1_000, 'superseded by a newer version');
    const done = latest('a');
    assert.deepEqual(
      [done.status, done.finished_at, done.note, done.last_error, done.data],
      ['cancelled', T0 + 1_000, 'superseded by a newer version', null, '{}'],
      'the note is no error',
    );
    finish(job!.id, 'succeeded', T0 + 2_000, null);
    assert.equal(latest('a').status, 'cancelled');
    db.close();
  });

  it('finish writes its note to note, and a run that did not fail leaves no last error, the failures kept as history', () => {
    const { db, push, claim, fail, finish, latest } = setup();
    const ocr = 'text read by OCR (text recognition) from 2 scanned page(s) without a text layer: page(s) 1, 2';
    push('a');
    fail(claim(1, T0)[0]!, 'model crashed', T0);
    assert.equal(latest('a').last_error, 'model crashed', 'backing off: the last attempt failed');
    finish(claim(1, latest('a').run_at)[0]!.id, 'succeeded', T0 + 10_000, ocr);
    const row = latest('a');
    assert.deepEqual([row.status, row.note, row.last_error], ['succeeded', ocr, null]);
    assert.deepEqual(JSON.parse(row.errors).map((e: { message: string }) => e.message), ['model crashed']);

    push('b');
    fail(claim(1, T0 + 20_000)[0]!, 'model crashed', T0 + 20_000);
    finish(claim(1, latest('b').run_at)[0]!.id, 'skipped', T0 + 30_000, null);
    assert.deepEqual([latest('b').status, latest('b').note, latest('b').last_error], ['skipped', null, null]);
    db.close();
  });

  it('fail with attempts left backs off: queued again after the backoff, the error kept', () => {
    const { db, push, claim, fail, latest } = setup();
    push('a');
    const [job] = claim(1, T0);
    assert.equal(fail(job!, 'model crashed', T0 + 100), 'retrying');
    const row = latest('a');
    assert.equal(row.status, 'queued');
    assert.equal(row.run_at, T0 + 100 + backoffMs(1));
    assert.equal(row.last_error, 'model crashed');
    assert.deepEqual(JSON.parse(row.errors), [{ attempt: 1, message: 'model crashed', at: new Date(T0 + 100).toISOString() }]);
    assert.deepEqual(claim(1, T0 + 100 + backoffMs(1) - 1), [], 'not due before its backoff has passed');
    assert.equal(claim(1, T0 + 100 + backoffMs(1)).length, 1);
    db.close();
  });

  it('fail on the last attempt marks the job failed for good, keeping its payload for a retry', () => {
    const { db, push, claim, fail, latest } = setup();
    push('a');
    let now = T0;
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      assert.equal(fail(claim(1, now)[0]!, `boom ${attempt}`, now), 'retrying');
      now = latest('a').run_at;
    }
    assert.equal(fail(claim(1, now)[0]!, 'boom 3', now), 'failed');
    const row = latest('a');
    assert.deepEqual([row.status, row.attempts, row.finished_at, row.last_error, row.note], ['failed', MAX_ATTEMPTS, now, 'boom 3', null]);
    assert.equal(JSON.parse(row.errors).length, MAX_ATTEMPTS);
    assert.equal((JSON.parse(row.data) as { title: string }).title, 'Opening hours');
    db.close();
  });

  it('fail cancels a job a newer queued version supersedes, and leaves a job no longer processing alone', () => {
    const { db, push, claim, fail, jobs } = setup();
    push('a');
    const [job] = claim(1, T0);
    push('a', T0 + 1_000);
    assert.equal(fail(job!, 'boom', T0 + 2_000), 'cancelled');
    assert.deepEqual(jobs('a').map((row) => [row.status, row.data === '{}']), [['cancelled', true], ['queued', false]]);
    // Already settled: nothing changes, and the worker hears it was cancelled.
    assert.equal(fail(job!, 'boom again', T0 + 3_000), 'cancelled');
    assert.deepEqual([jobs('a')[0]!.last_error, jobs('a')[0]!.note], ['boom', 'superseded by a newer version']);
    db.close();
  });

  it('retry puts a failed job back in the queue, refuses other states, and a newer queued version', () => {
    const { db, push, claim, fail, latest } = setup();
    const retry = prepareRetry(db);
    push('a');
    assert.equal(retry(latest('a').id, T0), false, 'a queued job is not retried');
    db.prepare('UPDATE jobs SET max_attempts = 1').run();
    fail(claim(1, T0)[0]!, 'boom', T0);
    const failed = latest('a');
    assert.equal(failed.status, 'failed');
    assert.equal(retry(failed.id, T0 + 1_000), true);
    const retried = latest('a');
    assert.deepEqual([retried.status, retried.attempts, retried.run_at, retried.finished_at], ['queued', 0, T0 + 1_000, null]);

    fail(claim(1, T0 + 1_000)[0]!, 'boom', T0 + 1_000);
    push('a', T0 + 2_000);
    assert.throws(() => retry(failed.id, T0 + 3_000), DuplicateError);
    db.close();
  });

  it('cancel on delete cancels the item’s queued and running jobs, and nothing else', () => {
    const { db, push, claim, fail, finish, jobs, latest } = setup();
    const cancel = prepareCancelOnDelete(db);
    const identity = { knowledgeBaseId: 'kb-main', integrationId: 'cms', externalId: 'a' };
    push('a');
    finish(claim(1, T0)[0]!.id, 'succeeded', T0, null);
    push('a', T0 + 1_000);
    claim(1, T0 + 1_000);
    push('a', T0 + 2_000);
    push('other', T0 + 2_000);
    assert.equal(cancel(identity, T0 + 3_000), 2);
    assert.deepEqual(
      jobs('a').map((row) => [row.status, row.note, row.last_error, row.finished_at]),
      [['succeeded', null, null, T0], ['cancelled', 'the item was deleted', null, T0 + 3_000], ['cancelled', 'the item was deleted', null, T0 + 3_000]],
    );
    assert.equal(jobs('other')[0]!.status, 'queued');
    assert.equal(cancel(identity, T0 + 4_000), 0);

    // A job waiting out its backoff keeps the error of its failed attempt beside the note.
    fail(claim(1, T0 + 5_000)[0]!, 'model crashed', T0 + 5_000);
    assert.equal(cancel({ ...identity, externalId: 'other' }, T0 + 6_000), 1);
    assert.deepEqual([latest('other').status, latest('other').note, latest('other').last_error], ['cancelled', 'the item was deleted', 'model crashed']);
    db.close();
  });

  // Recover stale, and the claim of its suspects: crash-suspects.test.ts.

  it('requeue all queues every indexed item at low priority, except those with an open job', () => {
    const { db, push, latest } = setup();
    for (const id of ['indexed', 'busy']) indexItem(db, id);
    push('busy');
    assert.equal(prepareRequeueAll(db)(T0 + 1_000, MAX_ATTEMPTS), 1);
    const requeued = latest('indexed');
    assert.deepEqual([requeued.status, requeued.priority, requeued.force_refresh, requeued.run_at], ['queued', 2, 1, T0 + 1_000]);
    assert.equal((JSON.parse(requeued.data) as { title: string }).title, 'Opening hours');
    assert.equal(prepareRequeueAll(db)(T0 + 2_000, MAX_ATTEMPTS), 0);
    db.close();
  });
});
