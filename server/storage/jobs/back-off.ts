import type { Db } from '../db.ts';

export type BackOff = { now: number; runAt: number; error: string | null; errors: string };

/**
 * Back off (processing → queued): an attempt failed (or was cut short by a crash) with attempts
 * left; the job waits in the queue until `runAt`, keeping its payload, place and attempt count.
 * Returns false when the job was no longer processing (its item was deleted meanwhile).
 */
export function prepareBackOff(db: Db): (id: number, backOff: BackOff) => boolean {
  const requeue = db.prepare<[BackOff & { id: number }]>(
    `UPDATE jobs SET status = 'queued', run_at = @runAt, locked_at = NULL, updated_at = @now,
       last_error = @error, errors = @errors
     WHERE id = @id AND status = 'processing'`,
  );
  return (id, backOff) => requeue.run({ id, ...backOff }).changes > 0;
}
