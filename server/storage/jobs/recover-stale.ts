import { JOB_NOTES } from '../../../common/contract/jobs.ts';
import type { Db } from '../db.ts';
import { prepareBackOff } from './back-off.ts';
import { prepareGiveUp } from './give-up.ts';
import type { JobRow } from './job-row.ts';
import { NOT_QUEUED } from './sql.ts';
import { prepareIsSuperseded } from './superseded.ts';

/**
 * Recover stale (processing → queued, cancelled or failed), at start-up: jobs left `processing`
 * by a crash go back to the queue, due at once. Their attempt counts, so a job that crashes the
 * process every time still ends failed; one superseded by a newer queued version is cancelled,
 * with a note saying so. Their recorded errors stay as they were (a crash leaves no message). Returns how many it found.
 */
export function prepareRecoverStale(db: Db): (now: number) => number {
  const stale = db.prepare<[], JobRow>(`SELECT * FROM jobs WHERE status = 'processing' AND ${NOT_QUEUED}`);
  const isSuperseded = prepareIsSuperseded(db);
  const giveUp = prepareGiveUp(db);
  const backOff = prepareBackOff(db);
  return (now) =>
    db
      .transaction(() => {
        const jobs = stale.all();
        for (const job of jobs) {
          if (isSuperseded(job)) {
            giveUp(job.id, { now, status: 'cancelled', error: job.last_error, note: JOB_NOTES.superseded, errors: job.errors });
          } else if (job.attempts >= job.max_attempts) {
            giveUp(job.id, { now, status: 'failed', error: 'interrupted by a crash on its last attempt', note: null, errors: job.errors });
          } else {
            backOff(job.id, { now, runAt: now, error: job.last_error, errors: job.errors });
          }
        }
        return jobs.length;
      })
      .immediate();
}
