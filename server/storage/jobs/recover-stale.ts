import type { Db } from '../db.ts';
import { prepareFail } from './fail.ts';
import type { JobRow } from './job-row.ts';
import { NOT_QUEUED } from './sql.ts';

/** The error of an attempt cut short by a crash (of the process, or of the worker thread running it). */
const INTERRUPTED_BY_CRASH = 'interrupted by a crash';

/**
 * Recover stale (processing → queued, cancelled or failed): jobs a crash left `processing`. At
 * start-up, every such job (no worker runs yet); when one worker thread died while others run,
 * only the jobs it held (`jobIds`), since the others' jobs are still in hand.
 *
 * Their attempt was counted when they were claimed and it failed: it ends as any failed attempt
 * does (fail.ts), its error INTERRUPTED_BY_CRASH added to their `errors` and made their last
 * error, whether attempts remain or not. So a job that crashes the process every time still ends
 * failed, one superseded by a newer queued version is cancelled with a note saying so, and the
 * others go back to the queue due at once (a crash is seldom the job's fault: no backoff).
 * Returns how many it found.
 */
export function prepareRecoverStale(db: Db): (now: number, jobIds?: readonly number[]) => number {
  const stale = db.prepare<[], JobRow>(`SELECT * FROM jobs WHERE status = 'processing' AND ${NOT_QUEUED}`);
  const held = db.prepare<[{ ids: string }], JobRow>(
    `SELECT * FROM jobs WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'processing'`,
  );
  const fail = prepareFail(db);
  return (now, jobIds) =>
    db
      .transaction(() => {
        const jobs = jobIds ? held.all({ ids: JSON.stringify(jobIds) }) : stale.all();
        for (const job of jobs) fail(job, INTERRUPTED_BY_CRASH, now, false, now);
        return jobs.length;
      })
      .immediate();
}
