import { OPEN_JOB_STATUSES, type JobStatus } from '../../../common/contract/jobs.ts';

/**
 * Job states as an SQL list, `('queued', 'processing')`, built from the contract's names (they
 * are plain words: nothing to escape). A single state stays written out in its statement: the
 * partial indexes on `status = 'queued'` serve only statements that repeat that condition.
 */
export function sqlList(statuses: readonly JobStatus[]): string {
  return `(${statuses.map((status) => `'${status}'`).join(', ')})`;
}

/** The states with work still ahead: a job in one of them may yet change its item. */
export const OPEN_STATUSES = sqlList(OPEN_JOB_STATUSES);

/**
 * The payload a settled job keeps, as an SQL literal. A job that succeeded, was skipped or was
 * cancelled never runs again and the item's content lives in the items table, so its payload is
 * dropped when it settles: a catalogue re-synced every day would otherwise store every payload
 * again each day. A failed job keeps its payload for a retry.
 */
export const SETTLED_DATA = "'{}'";

/**
 * The condition of the partial index jobs_by_status_not_queued (migration 9). SQLite uses that
 * index only for a query whose WHERE clause holds this condition word for word.
 */
export const NOT_QUEUED = "status <> 'queued'";
