import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IngestItem } from '../../../../common/contract/ingest.ts';
import { JOB_STATUSES } from '../../../../common/contract/jobs.ts';
import { AGING_MS } from '../../../../server/domain/jobs.ts';
import { openDatabase, type Db } from '../../../../server/storage/db.ts';
import { IndexRepo } from '../../../../server/storage/index-repo.ts';
import { ItemRepo } from '../../../../server/storage/item-repo.ts';
import { COUNT_BY_STATUS_SQL, jobListQuery, JobRepo } from '../../../../server/storage/jobs/job-repo.ts';
import { JobRuns } from '../../../../server/storage/jobs/job-runs.ts';
import { MonitorRepo } from '../../../../server/storage/monitor-repo.ts';
import { VectorStore } from '../../../../server/storage/vector-store.ts';
import { item, tempDataDir } from '../../../helpers/temp-data.ts';

type Count = { knowledge_base_id: string; status: string; priority: number; n: number };

/** The kept counts, and the same counts read from the job table. */
function counts(db: Db): { kept: Count[]; counted: Count[] } {
  const order = 'ORDER BY knowledge_base_id, status, priority';
  return {
    kept: db.prepare(`SELECT knowledge_base_id, status, priority, n FROM job_counts WHERE n <> 0 ${order}`).all() as Count[],
    counted: db
      .prepare(`SELECT knowledge_base_id, status, priority, count(*) AS n FROM jobs GROUP BY 1, 2, 3 ${order}`)
      .all() as Count[],
  };
}

function setup() {
  const db = openDatabase(tempDataDir());
  const repo = new JobRepo(db);
  const push = (items: Array<Partial<IngestItem>>, now = Date.now(), activeModelId: string | null = null) =>
    repo.enqueue([{ items: items.map((fields) => ({ ...(item() as IngestItem), ...fields })), apiKeyId: null }], {
      now,
      maxAttempts: 2,
      activeModelId,
    });
  return { db, repo, runs: new JobRuns(db), monitor: new MonitorRepo(db), push };
}

/** The statements a repository prepared (private, read here for their SQL). */
function statements(repo: object): Record<string, string> {
  const stmts = (repo as { stmts: Record<string, { source: string }> }).stmts;
  return Object.fromEntries(Object.entries(stmts).map(([name, stmt]) => [name, stmt.source]));
}

describe('monitor repository', () => {
  it('keeps the job counts equal to the job table through everything a job goes through', () => {
    const { db, repo, runs, push } = setup();
    const check = (step: string) => {
      const { kept, counted } = counts(db);
      assert.deepEqual(kept, counted, step);
    };
    push([{ externalId: 'a' }, { externalId: 'b', knowledgeBaseId: 'kb-other' }, { externalId: 'c', options: { priority: 'high' } }]);
    check('pushed');
    push([{ externalId: 'c', options: { priority: 'low' } }]);
    check('a queued job re-pushed at another priority');
    push([{ externalId: 'd', knowledgeBaseId: 'kb-new', options: { priority: 'low' } }, { externalId: 'd', knowledgeBaseId: 'kb-new' }]);
    check('one item twice in a push, at another priority the second time');
    repo.enqueue(
      [
        { items: [{ ...(item() as IngestItem), externalId: 'e', knowledgeBaseId: 'kb-shared', options: { priority: 'high' } }], apiKeyId: null },
        { items: [{ ...(item() as IngestItem), externalId: 'e', knowledgeBaseId: 'kb-shared' }], apiKeyId: null },
      ],
      { now: Date.now(), maxAttempts: 2, activeModelId: null },
    );
    check('two pushes sharing a commit, the second at another priority');
    const claimed = runs.claim(3, Date.now() + AGING_MS * 3);
    assert.equal(claimed.length, 3);
    check('claimed');
    runs.finish(claimed[0]!.id, 'succeeded', Date.now());
    runs.recordFailure(claimed[1]!, 'boom', Date.now());
    check('finished one, the other back to the queue');
    runs.recordFailure(claimed[2]!, 'boom', Date.now());
    runs.recordFailure(runs.claim(3, Date.now() + 60_000)[0]!, 'boom again', Date.now());
    check('failed for good');
    const failed = db.prepare("SELECT id FROM jobs WHERE status = 'failed'").all() as Array<{ id: number }>;
    assert.ok(failed.length > 0);
    assert.ok(repo.retry(failed[0]!.id, Date.now()));
    check('retried');
    new ItemRepo(db).delete({ knowledgeBaseId: 'kb-main', integrationId: 'cms', externalId: 'a' }, Date.now(), { keyId: 'test-key' });
    push([{ externalId: 'a' }]);
    new ItemRepo(db).delete({ knowledgeBaseId: 'kb-main', integrationId: 'cms', externalId: 'a' }, Date.now(), { keyId: 'test-key' });
    check('deleted: the queued job cancelled');
    const index = new IndexRepo(db, new VectorStore(db, 'test-model', 4));
    for (const [knowledgeBaseId, externalId] of [['kb-main', 'z'], ['kb-other', 'y']] as const) {
      db.transaction(() =>
        index.writeItem(
          {
            knowledgeBaseId, integrationId: 'cms', externalId, sourceType: 'ARTICLE', title: 't', content: 'c', text: 't',
            url: null, sourceData: null, contentHash: 'h', seq: 1, embedderId: 'test-model', chunks: [],
          },
          Date.now(),
        ),
      )();
    }
    const unchanged = { ...(item() as IngestItem).data, hash: 'h' };
    push([{ externalId: 'y', knowledgeBaseId: 'kb-other', data: unchanged }], Date.now(), 'test-model');
    assert.deepEqual(counts(db).kept.find((row) => row.status === 'skipped'), {
      knowledge_base_id: 'kb-other', status: 'skipped', priority: 1, n: 1,
    });
    check('unchanged content settled at once');
    assert.equal(repo.requeueAllItems(Date.now(), 2), 2);
    check('every indexed item queued again');
    db.prepare("DELETE FROM jobs WHERE status = 'cancelled'").run();
    check('jobs deleted');
    const byStatus = { queued: 0, processing: 0, succeeded: 0, skipped: 0, failed: 0, cancelled: 0 };
    for (const row of db.prepare('SELECT status, count(*) AS n FROM jobs GROUP BY status').all() as Array<{ status: 'queued'; n: number }>) {
      byStatus[row.status] = row.n;
    }
    assert.deepEqual(repo.countByStatus(), byStatus);
    db.close();
  });

  it('shows the current run: pending jobs, jobs finished since the oldest pending one was queued, and recent activity', () => {
    const { db, runs, monitor, push } = setup();
    const t0 = Date.now() - 60_000;
    push([{ externalId: 'before' }], t0 - 2_000);
    push([{ externalId: 'old' }], t0 - 1_000);
    const [before, old] = runs.claim(2, t0);
    runs.finish(before!.id, 'succeeded', t0 - 500);
    // The run starts with the oldest job still pending, the low-priority one queued at t0 (its
    // claim key lies 20 minutes later): 'old', finished after that, counts; 'before' does not.
    push([{ externalId: 'low', options: { priority: 'low' } }], t0);
    runs.finish(old!.id, 'succeeded', t0 + 500);
    push([{ externalId: 'n1' }, { externalId: 'n2' }, { externalId: 'n3' }], t0 + 1_000);
    push([{ externalId: 'high', options: { priority: 'high' } }], t0 + 2_000);
    assert.deepEqual(monitor.progress(), { pending: 5, done: 1 });
    assert.deepEqual([...monitor.queuedByPriority()].sort(), [[0, 1], [1, 3], [2, 1]]);

    const fingerprint = monitor.fingerprint();
    const claimed = runs.claim(2, t0 + 3_000); // high, then n1
    assert.deepEqual(claimed.map((job) => job.externalId), ['high', 'n1']);
    assert.notEqual(monitor.fingerprint(), fingerprint, 'a claim changes the fingerprint');
    // Started together: in the order they were pushed.
    assert.deepEqual(monitor.processing(10).map((job) => job.externalId), ['n1', 'high']);
    assert.deepEqual(monitor.progress(), { pending: 5, done: 1 });
    runs.finish(claimed[0]!.id, 'succeeded', t0 + 4_000);
    runs.finish(claimed[1]!.id, 'skipped', t0 + 5_000);
    assert.deepEqual(monitor.progress(), { pending: 3, done: 3 });

    // Latest first, jobs pushed, started or finished since t0 ('before' finished earlier).
    assert.deepEqual(
      monitor.recent(t0, 10).map((job) => [job.externalId, job.status]),
      [['n1', 'skipped'], ['high', 'succeeded'], ['n3', 'queued'], ['n2', 'queued'], ['old', 'succeeded'], ['low', 'queued']],
    );
    assert.deepEqual(monitor.recent(t0, 2).map((job) => job.externalId), ['n1', 'high']);

    for (const job of runs.claim(10, t0 + AGING_MS * 3)) runs.finish(job.id, 'succeeded', t0 + 6_000);
    assert.deepEqual(monitor.progress(), { pending: 0, done: 0 }, 'nothing pending: no run under way');
    db.close();
  });

  it('answers every monitor read and job list from an index, never by reading the job table', () => {
    const { db } = setup();
    const plan = (sql: string) => {
      const params = Array.from(sql.match(/\?/g) ?? [], () => 1);
      return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((row) => row.detail);
    };
    const readsWholeTable = (lines: string[]) => lines.some((line) => line === 'SCAN jobs');
    for (const [name, sql] of Object.entries(statements(new MonitorRepo(db)))) {
      // The newest pushes are the table's last rows: that walk stops after its LIMIT.
      if (name === 'latestPushed') continue;
      assert.ok(!readsWholeTable(plan(sql)), `${name}: ${plan(sql).join(' / ')}`);
    }
    assert.match(plan(COUNT_BY_STATUS_SQL).join(), /job_counts/);

    // Job lists by state, first page and later ones: from the state's own index entries.
    for (const status of JOB_STATUSES) {
      for (const beforeId of [null, 5]) {
        const lines = plan(jobListQuery({ status }, beforeId).sql).join(' / ');
        assert.match(lines, /INDEX (jobs_by_status_not_queued|jobs_claim_order)/, `${status}: ${lines}`);
      }
    }
    db.close();
  });
});
