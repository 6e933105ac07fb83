import type { FinalJobStatus } from '../../../common/contract/jobs.ts';
import type { Db } from '../db.ts';
import { SETTLED_DATA } from './sql.ts';

/** How a run ends that did not fail: failures go through fail.ts. */
export type JobOutcome = Exclude<FinalJobStatus, 'failed'>;

/**
 * Finish (processing → succeeded, skipped or cancelled): the worker's run ended; `note` becomes
 * the last error (why a run was cancelled). The payload is dropped (SETTLED_DATA). A job no
 * longer processing (its item was deleted meanwhile, which cancelled it) stays as it is. Runs
 * inside the caller's transaction when it goes with an index write.
 */
export function prepareFinish(db: Db): (id: number, status: JobOutcome, now: number, note: string | null) => void {
  const finish = db.prepare<[{ id: number; status: JobOutcome; now: number; note: string | null }]>(
    `UPDATE jobs SET status = @status, finished_at = @now, updated_at = @now, locked_at = NULL,
       last_error = coalesce(@note, last_error), data = ${SETTLED_DATA}
     WHERE id = @id AND status = 'processing'`,
  );
  return (id, status, now, note) => void finish.run({ id, status, now, note });
}
