import type { FinalJobStatus } from '../../../common/contract/jobs.ts';
import type { Db } from '../db.ts';
import { SETTLED_DATA } from './sql.ts';

/** How a run ends that did not fail: failures go through fail.ts. */
export type JobOutcome = Exclude<FinalJobStatus, 'failed'>;

/**
 * Finish (processing → succeeded, skipped or cancelled): the worker's run ended without failing.
 * `note` says why it ended so, when there is something to say (superseded by a newer version,
 * pages read by OCR); it is never an error. The last error goes: this run did not fail, and
 * `errors` keeps every earlier failure. The payload is dropped (SETTLED_DATA). A job no longer
 * processing (its item was deleted meanwhile, which cancelled it) stays as it is. Runs inside the
 * caller's transaction when it goes with an index write.
 */
export function prepareFinish(db: Db): (id: number, status: JobOutcome, now: number, note: string | null) => void {
  const finish = db.prepare<[{ id: number; status: JobOutcome; now: number; note: string | null }]>(
    `UPDATE jobs SET status = @status, finished_at = @now, updated_at = @now, locked_at = NULL,
       last_error = NULL, note = @note, data = ${SETTLED_DATA}
     WHERE id = @id AND status = 'processing'`,
  );
  return (id, status, now, note) => void finish.run({ id, status, now, note });
}
