import type { Db } from '../db.ts';
import { SETTLED_DATA } from './sql.ts';

/** `error`: the last attempt's (null when a crash left none); `note`: why it was cancelled. */
export type GiveUp = { now: number; status: 'failed' | 'cancelled'; error: string | null; note: string | null; errors: string };

/**
 * Give up (processing → failed or cancelled): the last attempt failed (failed: the payload stays
 * for a retry), or a newer version of the item is queued and supersedes this one (cancelled, with
 * a note saying so: the payload goes). Returns false when the job was no longer processing (its
 * item was deleted meanwhile, which cancelled it).
 */
export function prepareGiveUp(db: Db): (id: number, giveUp: GiveUp) => boolean {
  const end = db.prepare<[GiveUp & { id: number }]>(
    `UPDATE jobs SET status = @status, finished_at = @now, locked_at = NULL, updated_at = @now,
       last_error = @error, note = @note, errors = @errors,
       data = CASE WHEN @status = 'cancelled' THEN ${SETTLED_DATA} ELSE data END
     WHERE id = @id AND status = 'processing'`,
  );
  return (id, giveUp) => end.run({ id, ...giveUp }).changes > 0;
}
