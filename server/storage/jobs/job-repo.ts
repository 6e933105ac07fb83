import { JOB_STATUSES, type JobStatus } from '../../../common/contract/jobs.ts';
import type { ItemIdentity, Job } from '../../domain/job-record.ts';
import type { EnqueueOptions, EnqueueResult, JobFilter, JobStore, PushInput } from '../../domain/job-queue.ts';
import { jobIdSplits } from '../../domain/jobs.ts';
import type { Db } from '../db.ts';
import { prepareEnqueue, prepareRequeueAll, prepareRetry } from './index.ts';
import { type JobRow, toJob } from './job-row.ts';
import { NOT_QUEUED } from './sql.ts';

/**
 * Counted from the claim-order index alone: through the status index (the planner's own choice)
 * it read every queued row, on the event loop (bench/queue-scale.ts);
 * test/unit/server/storage/jobs/job-life.test.ts checks the plan.
 */
export const COUNT_QUEUED_UP_TO_SQL = "SELECT count(*) AS n FROM jobs INDEXED BY jobs_claim_order WHERE status = 'queued' AND sort_key <= ?";

/** The counts by state, from the counts kept as jobs change (job-counts.ts). */
export const COUNT_BY_STATUS_SQL = 'SELECT status, sum(n) AS n FROM job_counts GROUP BY status';

/**
 * The job table for the queue: the pushes' transitions (enqueue, requeue all, retry) and the
 * reads of jobs by id, jobId, item and filter. The worker's side is job-runs.ts.
 */
export class JobRepo implements JobStore {
  private readonly transitions;
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.transitions = { enqueue: prepareEnqueue(db), requeueAll: prepareRequeueAll(db), retry: prepareRetry(db) };
    this.stmts = {
      latestForItem: db.prepare<[ItemIdentity], JobRow>(
        `SELECT * FROM jobs WHERE knowledge_base_id = @knowledgeBaseId AND integration_id = @integrationId
           AND external_id = @externalId ORDER BY id DESC LIMIT 1`,
      ),
      countQueuedUpTo: db.prepare<[number], { n: number }>(COUNT_QUEUED_UP_TO_SQL),
      countByStatus: db.prepare<[], { status: JobStatus; n: number }>(COUNT_BY_STATUS_SQL),
      byId: db.prepare<[number], JobRow>('SELECT * FROM jobs WHERE id = ?'),
      // The parameter is a JSON array of [integrationId, externalId] pairs (jobIdSplits).
      latestPerItemForJobId: db.prepare<[string], JobRow>(
        `SELECT * FROM jobs WHERE id IN (
           SELECT max(j.id) FROM json_each(?) s
           JOIN jobs j ON j.integration_id = s.value ->> 0 AND j.external_id = s.value ->> 1
           GROUP BY j.knowledge_base_id, j.integration_id, j.external_id)
         ORDER BY id DESC`,
      ),
    };
  }

  /** Queues pushes in one transaction, on disk when this returns (enqueue.ts). */
  enqueue(pushes: PushInput[], opts: EnqueueOptions): EnqueueResult[] {
    return this.transitions.enqueue(pushes, opts);
  }

  /** Queues every indexed item again after a model change; returns how many (requeue-all.ts). */
  requeueAllItems(now: number, maxAttempts: number): number {
    return this.transitions.requeueAll(now, maxAttempts);
  }

  /** Puts a failed job back in the queue; false if it is not failed (retry.ts). */
  retry(id: number, now: number): boolean {
    return this.transitions.retry(id, now);
  }

  countQueuedUpTo(key: number): number {
    return this.stmts.countQueuedUpTo.get(key)!.n;
  }

  countByStatus(): Record<JobStatus, number> {
    const counts = Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<JobStatus, number>;
    for (const row of this.stmts.countByStatus.all()) counts[row.status] = row.n;
    return counts;
  }

  latestForItem(identity: ItemIdentity): Job | null {
    const { knowledgeBaseId, integrationId, externalId } = identity;
    const row = this.stmts.latestForItem.get({ knowledgeBaseId, integrationId, externalId });
    return row ? toJob(row) : null;
  }

  get(id: number): Job | null {
    const row = this.stmts.byId.get(id);
    return row ? toJob(row) : null;
  }

  /** The latest job of every item whose seed jobId is this string (several when ids contain hyphens). */
  latestForJobId(jobId: string): Job[] {
    return this.stmts.latestPerItemForJobId.all(JSON.stringify(jobIdSplits(jobId))).map(toJob);
  }

  /** Newest first; the cursor is the internal id of the last job of the previous page. */
  list(filter: JobFilter, limit: number, beforeId: number | null): Job[] {
    const { sql, params } = jobListQuery(filter, beforeId);
    return this.db.prepare<Array<string | number>, JobRow>(sql).all(...params, limit).map(toJob);
  }
}

/** The statement of a job list page (its last parameter, the page size, is left to bind). */
export function jobListQuery(filter: JobFilter, beforeId: number | null): { sql: string; params: Array<string | number> } {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (filter.status === 'queued') {
    // The ids of exactly the queued jobs, from the queue's own index alone: its cost follows the
    // queue's length (about 20 ms at 150,000, bench/queue-scale.ts). Left to itself, the planner
    // walks the table newest first, which behind a long history with a short queue reads every row.
    where.push("id IN (SELECT id FROM jobs INDEXED BY jobs_claim_order WHERE status = 'queued')");
  } else if (filter.status) {
    where.push(`status = ? AND ${NOT_QUEUED}`);
    params.push(filter.status);
  }
  if (filter.knowledgeBaseId) {
    where.push('knowledge_base_id = ?');
    params.push(filter.knowledgeBaseId);
  }
  if (filter.integrationId) {
    where.push('integration_id = ?');
    params.push(filter.integrationId);
  }
  if (filter.allowedKnowledgeBaseIds) {
    where.push(`knowledge_base_id IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.allowedKnowledgeBaseIds));
  }
  if (beforeId !== null) {
    where.push('id < ?');
    params.push(beforeId);
  }
  return { sql: `SELECT * FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`, params };
}
