import { JOB_NOTES } from '../../../common/contract/jobs.ts';
import { backoffMs } from '../../domain/jobs.ts';
import type { Db } from '../db.ts';
import { prepareBackOff } from './back-off.ts';
import { prepareGiveUp } from './give-up.ts';
import type { ItemIdentity, Job } from '../../domain/job-record.ts';
import { prepareIsSuperseded } from './superseded.ts';

export type FailureOutcome = 'retrying' | 'failed' | 'cancelled';

/** What failing a run reads of its job. */
export type FailingJob = ItemIdentity & Pick<Job, 'id' | 'attempts' | 'maxAttempts' | 'errors'>;

/**
 * Fail: what happens when a run of a job fails. The attempt's error is added to the job's
 * errors, then, in one IMMEDIATE transaction:
 * - a newer version of the item is queued: the job is cancelled, the newer one supersedes it (its
 *   note says so, its last error stays this attempt's);
 * - it was the last attempt (attempts ≥ max_attempts), or the failure is `final` (trying again
 *   cannot help: a corrupt or password-protected file): the job is failed for good, keeping its
 *   payload for a manual retry (retry.ts);
 * - otherwise it backs off to the queue for `backoffMs(attempts)` (2 s, 4 s, 8 s … domain/jobs.ts),
 *   or until `runAt` when the caller says (crash recovery requeues due at once: recover-stale.ts).
 * A job no longer processing (its item was deleted meanwhile, which cancelled it) stays as it is,
 * and the outcome is `cancelled`. Inside a caller's transaction, it is a savepoint of it.
 */
export function prepareFail(db: Db): (job: FailingJob, message: string, now: number, final?: boolean, runAt?: number) => FailureOutcome {
  const isSuperseded = prepareIsSuperseded(db);
  const giveUp = prepareGiveUp(db);
  const backOff = prepareBackOff(db);
  return (job, message, now, final = false, runAt = now + backoffMs(job.attempts)) =>
    db
      .transaction((): FailureOutcome => {
        const errors = JSON.stringify([
          ...job.errors,
          { attempt: job.attempts, message, at: new Date(now).toISOString() },
        ]);
        let outcome: FailureOutcome;
        let changed: boolean;
        if (isSuperseded(job)) {
          outcome = 'cancelled';
          changed = giveUp(job.id, { now, status: outcome, error: message, note: JOB_NOTES.superseded, errors });
        } else if (final || job.attempts >= job.maxAttempts) {
          outcome = 'failed';
          changed = giveUp(job.id, { now, status: outcome, error: message, note: null, errors });
        } else {
          outcome = 'retrying';
          changed = backOff(job.id, { now, runAt, error: message, errors });
        }
        return changed ? outcome : 'cancelled';
      })
      .immediate();
}
