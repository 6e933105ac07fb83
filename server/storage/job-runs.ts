import { backoffMs } from '../domain/jobs.ts';
import type { Db } from './db.ts';
import { NOT_QUEUED, SETTLED_DATA, type JobRow } from './job-repo.ts';

export type JobOutcome = 'succeeded' | 'skipped' | 'cancelled';

/**
 * Most characters of payload one claim takes (its first job always goes, whatever its size). A
 * batch of 8 ordinary items stays far below; 20,000 characters are about 50 chunks of prose.
 */
export const CLAIM_CHARACTERS = 20_000;
export type FailureOutcome = 'retrying' | 'failed' | 'cancelled';

/**
 * The worker's side of the job table: claiming, finishing, failing and crash recovery.
 * Each state change is one statement or one short transaction.
 */
export class JobRuns {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      // Walks the queue in claim order and stops after `limit` due jobs. Left to itself, the
      // planner read every queued job through the status index and sorted them all, inside this
      // write transaction that every commit waits for (bench/queue-scale.ts).
      claimOrder: db.prepare<[{ now: number; limit: number }], { id: number; characters: number }>(
        `SELECT id, length(data) AS characters FROM jobs INDEXED BY jobs_claim_order
         WHERE status = 'queued' AND run_at <= @now ORDER BY sort_key LIMIT @limit`,
      ),
      claim: db.prepare<[{ now: number; ids: string }], JobRow>(
        `UPDATE jobs SET status = 'processing', locked_at = @now, started_at = @now, updated_at = @now,
           attempts = attempts + 1
         WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'queued'
         RETURNING *`,
      ),
      finish: db.prepare<[{ id: number; status: JobOutcome; now: number; note: string | null }]>(
        `UPDATE jobs SET status = @status, finished_at = @now, updated_at = @now, locked_at = NULL,
           last_error = coalesce(@note, last_error), data = ${SETTLED_DATA}
         WHERE id = @id AND status = 'processing'`,
      ),
      get: db.prepare<[number], JobRow>('SELECT * FROM jobs WHERE id = ?'),
      newerQueued: db.prepare<[JobRow], { n: number }>(
        `SELECT count(*) AS n FROM jobs WHERE knowledge_base_id = @knowledge_base_id
           AND integration_id = @integration_id AND external_id = @external_id AND status = 'queued'`,
      ),
      requeue: db.prepare<[{ id: number; now: number; runAt: number; error: string | null; errors: string }]>(
        `UPDATE jobs SET status = 'queued', run_at = @runAt, locked_at = NULL, updated_at = @now,
           last_error = @error, errors = @errors
         WHERE id = @id AND status = 'processing'`,
      ),
      fail: db.prepare<[{ id: number; now: number; status: string; error: string; errors: string }]>(
        `UPDATE jobs SET status = @status, finished_at = @now, locked_at = NULL, updated_at = @now,
           last_error = @error, errors = @errors,
           data = CASE WHEN @status = 'cancelled' THEN ${SETTLED_DATA} ELSE data END
         WHERE id = @id AND status = 'processing'`,
      ),
      stale: db.prepare<[], JobRow>(`SELECT * FROM jobs WHERE status = 'processing' AND ${NOT_QUEUED}`),
      nextRunAt: db.prepare<[], { runAt: number | null }>("SELECT min(run_at) AS runAt FROM jobs WHERE status = 'queued'"),
    };
  }

  /**
   * Claims up to `limit` due jobs in claim order, in one IMMEDIATE transaction, and stops after
   * the job that takes the batch past CLAIM_CHARACTERS: a worker holds a batch until every job of
   * it is done, so a large item goes alone and no small job waits behind it in the same batch.
   */
  claim(limit: number, now: number): JobRow[] {
    return this.db
      .transaction(() => {
        const ids: number[] = [];
        let characters = 0;
        for (const candidate of this.stmts.claimOrder.all({ now, limit })) {
          if (ids.length > 0 && characters + candidate.characters > CLAIM_CHARACTERS) break;
          ids.push(candidate.id);
          characters += candidate.characters;
        }
        return ids.length === 0 ? [] : this.stmts.claim.all({ now, ids: JSON.stringify(ids) });
      })
      .immediate()
      .sort((a, b) => a.sort_key - b.sort_key);
  }

  /** Inside the caller's transaction when it goes with an index write. */
  finish(id: number, status: JobOutcome, now: number, note: string | null = null): void {
    this.stmts.finish.run({ id, status, now, note });
  }

  /**
   * Records a failed attempt: back to the queue after a backoff, or failed for good after the
   * last attempt. A job whose item already has a newer queued version is cancelled instead:
   * the newer version supersedes it. A job no longer processing (its item was deleted meanwhile,
   * which cancelled it) stays as it is.
   */
  recordFailure(job: JobRow, message: string, now: number): FailureOutcome {
    return this.db
      .transaction((): FailureOutcome => {
        const errors = JSON.stringify([
          ...(JSON.parse(job.errors) as unknown[]),
          { attempt: job.attempts, message, at: new Date(now).toISOString() },
        ]);
        let outcome: FailureOutcome;
        let changes: number;
        if (this.stmts.newerQueued.get(job)!.n > 0) {
          outcome = 'cancelled';
          changes = this.stmts.fail.run({ id: job.id, now, status: outcome, error: message, errors }).changes;
        } else if (job.attempts >= job.max_attempts) {
          outcome = 'failed';
          changes = this.stmts.fail.run({ id: job.id, now, status: outcome, error: message, errors }).changes;
        } else {
          outcome = 'retrying';
          changes = this.stmts.requeue.run({ id: job.id, now, runAt: now + backoffMs(job.attempts), error: message, errors }).changes;
        }
        return changes > 0 ? outcome : 'cancelled';
      })
      .immediate();
  }

  /**
   * At start-up: jobs left `processing` by a crash go back to the queue (their attempt counts, so
   * a job that crashes the process every time still ends failed), unless superseded.
   */
  recoverStale(now: number): number {
    return this.db
      .transaction(() => {
        const stale = this.stmts.stale.all();
        for (const job of stale) {
          if (this.stmts.newerQueued.get(job)!.n > 0) {
            this.stmts.fail.run({ id: job.id, now, status: 'cancelled', error: 'superseded by a newer version', errors: job.errors });
          } else if (job.attempts >= job.max_attempts) {
            this.stmts.fail.run({ id: job.id, now, status: 'failed', error: 'interrupted by a crash on its last attempt', errors: job.errors });
          } else {
            this.stmts.requeue.run({ id: job.id, now, runAt: now, error: job.last_error, errors: job.errors });
          }
        }
        return stale.length;
      })
      .immediate();
  }

  /** When the next queued job becomes due (null when the queue is empty). */
  nextRunAt(): number | null {
    return this.stmts.nextRunAt.get()!.runAt;
  }
}
