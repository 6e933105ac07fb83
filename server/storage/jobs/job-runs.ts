import type { Db } from '../db.ts';
import { type FailureOutcome, type JobOutcome, prepareClaim, prepareFail, prepareFinish, prepareRecoverStale } from './index.ts';
import type { ClaimedJob } from '../../domain/job-record.ts';
import { toClaimedJob } from './job-row.ts';
import type { Crash } from './recover-stale.ts';

/**
 * The worker's side of the job table, on the worker's own connection: claiming, finishing,
 * failing and crash recovery (a file each in this folder), and when the queue is next due.
 */
export class JobRuns {
  private readonly transitions;
  private readonly nextRunAtStmt;

  constructor(db: Db) {
    this.transitions = {
      claim: prepareClaim(db),
      finish: prepareFinish(db),
      fail: prepareFail(db),
      recoverStale: prepareRecoverStale(db),
    };
    this.nextRunAtStmt = db.prepare<[], { runAt: number | null }>("SELECT min(run_at) AS runAt FROM jobs WHERE status = 'queued'");
  }

  /**
   * Claims up to `limit` due jobs in claim order (claim.ts): crash suspects alone, and large jobs
   * on at most `workers` − 1 of the pipeline's workers.
   */
  claim(limit: number, now: number, workers = 1): ClaimedJob[] {
    return this.transitions.claim(limit, now, workers).map(toClaimedJob);
  }

  /** A run ended without failing (finish.ts); inside the caller's transaction when it goes with an index write. */
  finish(id: number, status: JobOutcome, now: number, note: string | null = null): void {
    this.transitions.finish(id, status, now, note);
  }

  /**
   * A run failed: the job backs off, fails for good, or is cancelled when superseded (fail.ts).
   * A `final` failure is not tried again: another attempt would fail the same way.
   */
  recordFailure(job: ClaimedJob, message: string, now: number, final = false): FailureOutcome {
    return this.transitions.fail(job, message, now, final);
  }

  /**
   * Jobs a crash left processing go back to the queue as suspects, their attempt given back, or
   * end when proven poison or superseded (recover-stale.ts): at start-up all of them; after a
   * worker thread died, those it held (`crash.jobIds`), with what it said as it died (`crash.cause`).
   */
  recoverStale(now: number, crash?: Crash): number {
    return this.transitions.recoverStale(now, crash);
  }

  /** When the next queued job becomes due (null when the queue is empty). */
  nextRunAt(): number | null {
    return this.nextRunAtStmt.get()!.runAt;
  }
}
