import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../../server/config.ts';
import { JobHistoryRetention } from '../../../../server/domain/job-history-retention.ts';
import type { Db } from '../../../../server/storage/db.ts';
import { DAY, history, T0 } from '../../../helpers/job-history.ts';
import { tempDataDir } from '../../../helpers/temp-data.ts';

/** The kept counts by state must stay equal to the table's. */
function assertCountsKept(db: Db): void {
  const kept = db.prepare('SELECT status, sum(n) AS n FROM job_counts GROUP BY status HAVING sum(n) <> 0 ORDER BY status').all();
  const counted = db.prepare('SELECT status, count(*) AS n FROM jobs GROUP BY status ORDER BY status').all();
  assert.deepEqual(kept, counted);
}

describe('job history retention', () => {
  it('removes jobs finished before the cutoff that a newer job of their item replaced, and no other', () => {
    const { db, jobs, history: repo } = history();
    assert.deepEqual(jobs(), [
      'changed succeeded',
      'resynced succeeded',
      'only-once succeeded',
      'failed-then-queued failed',
      'twice-old succeeded',
      'twice-old succeeded',
      'changed succeeded',
      'resynced succeeded',
      'failed-then-queued queued',
    ]);
    // A cutoff 30 days before day 40.
    const result = repo.prune(T0 + 10 * DAY, null, 100);
    assert.deepEqual(result, { removed: 4, next: null });
    assert.deepEqual(jobs(), [
      // The newest job of an item stays whatever its age, a failed one too.
      'only-once succeeded',
      'twice-old succeeded',
      'changed succeeded',
      'resynced succeeded',
      'failed-then-queued queued',
    ]);
    assertCountsKept(db);
    // Nothing finished after the cutoff goes: with the cutoff at day 1, only what day 0 finished.
    const fresh = history();
    assert.equal(fresh.history.prune(T0 + DAY, null, 100).removed, 4);
    assert.equal(fresh.history.prune(T0 + 1, null, 100).removed, 0);
  });

  it('goes through the history a page at a time, kept jobs not blocking the next pages', () => {
    const paged = history();
    const whole = history();
    let removed = 0;
    let pages = 0;
    let from = null;
    do {
      const page = paged.history.prune(T0 + 10 * DAY, from, 1);
      removed += page.removed;
      from = page.next;
      pages++;
    } while (from);
    assert.equal(removed, 4);
    // Six finished before the cutoff (five of them at the same moment), one per page, and the
    // page that finds none left.
    assert.equal(pages, 7);
    whole.history.prune(T0 + 10 * DAY, null, 100);
    assert.deepEqual(paged.jobs(), whole.jobs());
  });

  it('reads a page by a range of the finishing-time index and checks for a newer job by the item index', () => {
    const { db, history: repo } = history();
    const stmts = (repo as unknown as { stmts: Record<string, { source: string }> }).stmts;
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ cutoff: 1, finishedAt: 1, id: 1, limit: 1, integration_id: 'a', external_id: 'b', knowledge_base_id: 'c' }) as Array<{ detail: string }>)
        .map((row) => row.detail)
        .join('; ');
    assert.match(plan(stmts.page!.source), /^SEARCH jobs USING INDEX jobs_by_finish \(finished_at>\? AND finished_at<\?\)$/);
    assert.match(plan(stmts.removeSuperseded!.source), /USING COVERING INDEX jobs_by_item \(integration_id=\? AND external_id=\? AND knowledge_base_id=\? AND id>\?\)/);
  });

  it('keeps every job when the history is set to 0 days, and reads the setting from LOCALIQ_JOB_HISTORY_DAYS', async () => {
    const { db, jobs, history: repo } = history();
    const before = jobs();
    const keepAll = new JobHistoryRetention(repo, 0, () => assert.fail('nothing is removed'), () => T0 + 400 * DAY);
    assert.equal(await keepAll.pass(), 0);
    assert.deepEqual(jobs(), before);
    const passes: number[] = [];
    const thirtyDays = new JobHistoryRetention(repo, 30, (removed) => passes.push(removed), () => T0 + 40 * DAY);
    assert.equal(await thirtyDays.pass(), 4);
    assert.deepEqual(passes, [4]);
    assertCountsKept(db);
    assert.equal(loadConfig({ LOCALIQ_DATA_DIR: tempDataDir() }).jobHistoryDays, 30);
    assert.equal(loadConfig({ LOCALIQ_DATA_DIR: tempDataDir(), LOCALIQ_JOB_HISTORY_DAYS: '0' }).jobHistoryDays, 0);
    assert.throws(() => loadConfig({ LOCALIQ_DATA_DIR: tempDataDir(), LOCALIQ_JOB_HISTORY_DAYS: '-1' }));
  });
});
