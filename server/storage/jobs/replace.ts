import { arrivalOf, sortKey } from '../../domain/jobs.ts';
import type { Db } from '../db.ts';

/** A new push of an item whose job is still queued, and that job's place in the queue. */
export type Replacement = {
  /** The queued job, its claim key and its priority level before this push. */
  id: number;
  queuedKey: number;
  queuedPriority: number;
  sourceType: string;
  /** The payload as JSON. */
  data: string;
  contentHash: string;
  forceRefresh: 0 | 1;
  priority: number;
  seq: number;
  maxAttempts: number;
  apiKeyId: string | null;
  now: number;
  /** The new payload's text phase waits for the text phase thread (jobs.text_pending). */
  textPending: 0 | 1;
};

/**
 * Replace (queued → queued): an item has at most one queued job (the unique index
 * jobs_one_queued_per_item), so a push of an item whose job still waits updates that job in place.
 * It takes the new payload, options and attempts, and keeps its arrival time at the new priority:
 * pushing again never loses a job its place. Returns the job's new claim key.
 */
export function prepareReplace(db: Db): (replacement: Replacement) => number {
  const replace = db.prepare<[Omit<Replacement, 'queuedKey' | 'queuedPriority'> & { sortKey: number }]>(
    `UPDATE jobs SET source_type = @sourceType, data = @data, content_hash = @contentHash,
       force_refresh = @forceRefresh, priority = @priority, seq = @seq, sort_key = @sortKey,
       attempts = 0, max_attempts = @maxAttempts, run_at = @now, last_error = NULL, errors = '[]',
       api_key_id = @apiKeyId, updated_at = @now, text_pending = @textPending
     WHERE id = @id`,
  );
  return ({ queuedKey, queuedPriority, ...fields }) => {
    const key = sortKey(arrivalOf(queuedKey, queuedPriority), fields.priority);
    replace.run({ ...fields, sortKey: key });
    return key;
  };
}
