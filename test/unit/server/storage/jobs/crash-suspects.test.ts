import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IngestItem } from '../../../../../common/contract/ingest.ts';
import { openDatabase } from '../../../../../server/storage/db.ts';
import { CLAIM_CHARACTERS } from '../../../../../server/storage/jobs/claim.ts';
import { prepareClaim, prepareEnqueue, prepareFinish, prepareRecoverStale, prepareRetry } from '../../../../../server/storage/jobs/index.ts';
import type { JobRow } from '../../../../../server/storage/jobs/job-row.ts';
import { POISON_SOLO_CRASHES, poisonError } from '../../../../../server/storage/jobs/recover-stale.ts';
import { item, tempDataDir } from '../../../../helpers/temp-data.ts';

/**
 * Recover stale and the claim rules around it (storage/jobs/recover-stale.ts, claim.ts): a crash
 * is charged to a job only when that job was alone in flight, as a suspect, at POISON_SOLO_CRASHES
 * crashes; and large jobs leave one worker to ordinary ones.
 */
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const MAX_ATTEMPTS = 3;

function setup() {
  const db = openDatabase(tempDataDir());
  const enqueue = prepareEnqueue(db);
  const push = (externalId: string, now = T0, data: Record<string, unknown> = {}, integrationId = 'cms') =>
    enqueue([{ items: [item({ externalId, integrationId }, data) as IngestItem], apiKeyId: null }], { now, maxAttempts: MAX_ATTEMPTS, activeModelId: null })[0]!;
  const latest = (externalId: string) => db.prepare('SELECT * FROM jobs WHERE external_id = ? ORDER BY id DESC LIMIT 1').get(externalId) as JobRow;
  const ids = (jobs: JobRow[]) => jobs.map((job) => job.external_id);
  return { db, push, latest, ids, claim: prepareClaim(db), finish: prepareFinish(db), recover: prepareRecoverStale(db) };
}

describe('crash suspects', () => {
  it('a crash in a crowd charges nobody: the attempt is given back, nothing is added to errors, each job becomes a suspect', () => {
    const { db, push, latest, claim, recover } = setup();
    for (const id of ['a', 'b', 'c']) push(id);
    db.prepare("UPDATE jobs SET attempts = ? WHERE external_id = 'c'").run(MAX_ATTEMPTS - 1);
    assert.equal(claim(8, T0).length, 3);
    assert.equal(recover(T0 + 5_000), 3);
    for (const id of ['a', 'b', 'c']) {
      const job = latest(id);
      assert.deepEqual(
        [job.status, job.run_at, job.suspect, job.solo_crashes, job.last_error, job.errors],
        ['queued', T0 + 5_000, 1, 0, null, '[]'],
        id,
      );
    }
    assert.equal(latest('a').attempts, 0);
    assert.equal(latest('c').attempts, MAX_ATTEMPTS - 1, 'on its last attempt, still not failed: the crash was not proven its fault');
    assert.equal(recover(T0 + 6_000), 0);
    db.close();
  });

  it('suspects are claimed one at a time, with nothing else in hand beside them', () => {
    const { db, push, ids, claim, finish, recover } = setup();
    for (const id of ['s1', 's2']) push(id);
    claim(8, T0);
    recover(T0 + 1_000);
    push('fresh', T0 + 2_000);
    assert.deepEqual(ids(claim(8, T0 + 3_000, 2)), ['s1'], 'a suspect alone');
    assert.deepEqual(claim(8, T0 + 3_000, 2), [], 'nothing beside a suspect, not even an ordinary job');
    finish(db.prepare("SELECT id FROM jobs WHERE external_id = 's1'").pluck().get() as number, 'succeeded', T0 + 4_000, null);
    // While an ordinary batch is in hand, a due suspect waits for it to end rather than join it.
    db.prepare("UPDATE jobs SET run_at = ? WHERE external_id = 's2'").run(T0 + 60_000);
    assert.deepEqual(ids(claim(8, T0 + 5_000, 2)), ['fresh'], 'a suspect not yet due holds nothing up');
    assert.deepEqual(claim(8, T0 + 60_000, 2), [], 'the due suspect waits for the batch in hand');
    finish(db.prepare("SELECT id FROM jobs WHERE external_id = 'fresh'").pluck().get() as number, 'succeeded', T0 + 61_000, null);
    assert.deepEqual(ids(claim(8, T0 + 61_000, 2)), ['s2']);
    db.close();
  });

  it(`a suspect alone in flight at ${POISON_SOLO_CRASHES} crashes fails as a poison, with the reason; the others it crashed with finish`, () => {
    const { db, push, latest, ids, claim, finish, recover } = setup();
    for (const id of ['innocent', 'poison']) push(id);
    claim(8, T0);
    recover(T0 + 1_000); // the process died with both in hand
    assert.deepEqual(ids(claim(8, T0 + 2_000)), ['innocent']);
    finish(latest('innocent').id, 'succeeded', T0 + 2_500, null);
    assert.deepEqual(ids(claim(8, T0 + 3_000)), ['poison']);
    assert.equal(recover(T0 + 4_000, { jobIds: [latest('poison').id], cause: 'RangeError: out of memory' }), 1);
    assert.deepEqual([latest('poison').status, latest('poison').solo_crashes, latest('poison').attempts], ['queued', 1, 0], 'one solo crash may be chance');
    assert.deepEqual(ids(claim(8, T0 + 5_000)), ['poison']);
    assert.equal(recover(T0 + 6_000, { jobIds: [latest('poison').id], cause: 'RangeError: out of memory' }), 1);
    const poison = latest('poison');
    const reason = poisonError(POISON_SOLO_CRASHES, 'RangeError: out of memory');
    assert.deepEqual([poison.status, poison.last_error, poison.finished_at, poison.solo_crashes], ['failed', reason, T0 + 6_000, POISON_SOLO_CRASHES]);
    assert.match(reason, /each of the 2 times it ran alone: RangeError: out of memory/);
    assert.deepEqual(JSON.parse(poison.errors), [{ attempt: 1, message: reason, at: new Date(T0 + 6_000).toISOString() }]);
    assert.equal(latest('innocent').status, 'succeeded');
    // Retried by hand, it runs alone again, with its count of crashes started afresh.
    assert.equal(prepareRetry(db)(poison.id, T0 + 7_000), true);
    assert.deepEqual([latest('poison').suspect, latest('poison').solo_crashes], [1, 0]);
    db.close();
  });

  it('a process crash proves nothing when several jobs were in flight, even suspects; nor a first crash alone of a job not yet suspected', () => {
    const { db, push, latest, claim, recover } = setup();
    push('alone');
    claim(8, T0);
    recover(T0 + 1_000);
    assert.deepEqual([latest('alone').suspect, latest('alone').solo_crashes], [1, 0], 'not yet a suspect when it crashed');
    push('other', T0 + 1_500);
    // Two suspects in hand at once (a worker's held jobs given back by hand): not alone.
    db.prepare("UPDATE jobs SET status = 'processing', suspect = 1").run();
    assert.equal(recover(T0 + 2_000), 2);
    assert.deepEqual([latest('alone').solo_crashes, latest('other').solo_crashes], [0, 0]);
    db.close();
  });

  it('a job whose newer version is queued is cancelled as superseded, its history untouched', () => {
    const { db, push, latest, claim, recover } = setup();
    push('page');
    claim(8, T0);
    push('page', T0 + 1_000, { content: 'A newer version.' });
    assert.equal(recover(T0 + 2_000), 1);
    const rows = db.prepare("SELECT status, note, last_error, errors FROM jobs WHERE external_id = 'page' ORDER BY id").all();
    assert.deepEqual(rows, [
      { status: 'cancelled', note: 'superseded by a newer version', last_error: null, errors: '[]' },
      { status: 'queued', note: null, last_error: null, errors: '[]' },
    ]);
    assert.equal(latest('page').suspect, 0);
    db.close();
  });

  it('given the ids a dead worker thread held, recovers only those still processing', () => {
    const { db, push, latest, ids, claim, finish, recover } = setup();
    ['held', 'done', 'elsewhere'].forEach((id, i) => push(id, T0 + i));
    const [held, done] = claim(2, T0 + 10);
    finish(done!.id, 'succeeded', T0 + 1_000, null);
    assert.deepEqual(ids(claim(1, T0 + 1_000)), ['elsewhere']);
    assert.equal(recover(T0 + 2_000, { jobIds: [held!.id, done!.id] }), 1);
    assert.deepEqual(['held', 'done', 'elsewhere'].map((id) => latest(id).status), ['queued', 'succeeded', 'processing']);
    assert.equal(recover(T0 + 3_000, { jobIds: [] }), 0);
    db.close();
  });
});

describe('large jobs and workers', () => {
  const large = { content: 'Long text. '.repeat(Math.ceil(CLAIM_CHARACTERS / 10)) };

  it('large jobs hold at most workers − 1 workers: an ordinary job further down the queue goes to the last one', () => {
    const { db, push, ids, claim } = setup();
    push('big-1', T0, large, 'big');
    push('big-2', T0 + 1, large, 'big');
    push('big-3', T0 + 2, large, 'big');
    assert.deepEqual(ids(claim(8, T0 + 10, 2)), ['big-1'], 'a large job goes alone');
    assert.deepEqual(claim(8, T0 + 10, 2), [], 'the second worker does not take another large job');
    push('shop-edit', T0 + 20, {}, 'shop');
    assert.deepEqual(ids(claim(8, T0 + 30, 2)), ['shop-edit'], 'it takes the small push behind the large ones');
    assert.deepEqual(ids(claim(8, T0 + 30, 3)), ['big-2'], 'with three workers two may hold large jobs');
    db.close();
  });

  it('with one worker, large jobs are claimed as before', () => {
    const { db, push, ids, claim, finish } = setup();
    push('big-1', T0, large, 'big');
    push('big-2', T0 + 1, large, 'big');
    const [first] = claim(8, T0 + 10);
    assert.equal(first!.external_id, 'big-1');
    finish(first!.id, 'succeeded', T0 + 20, null);
    assert.deepEqual(ids(claim(8, T0 + 30, 1)), ['big-2']);
    db.close();
  });
});
