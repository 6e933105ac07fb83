import type { Db } from '../db.ts';
import { refusingDuplicates } from '../sqlite-errors.ts';

/**
 * Retry (failed → queued): someone puts a failed job back in the queue, due at once, with fresh
 * attempts and its payload (kept when it failed). A job failed as a poison (recover-stale.ts)
 * stays a suspect, run alone, with its count of crashes started afresh. Returns false when the job is not failed.
 * Throws a DuplicateError when its item already has a queued job (an item has at most one,
 * jobs_one_queued_per_item): the newer version goes instead.
 */
export function prepareRetry(db: Db): (id: number, now: number) => boolean {
  const retry = db.prepare<[{ id: number; now: number }]>(
    `UPDATE jobs SET status = 'queued', attempts = 0, run_at = @now, updated_at = @now, finished_at = NULL,
       locked_at = NULL, solo_crashes = 0
     WHERE id = @id AND status = 'failed'`,
  );
  return (id, now) => refusingDuplicates(() => retry.run({ id, now }).changes > 0, 'A newer version of this item is already queued.');
}
