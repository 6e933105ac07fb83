import type { Db } from '../db.ts';
import type { JobRow } from './job-row.ts';

/**
 * Whether a newer version of the job's item is queued: a run of this one that did not make it
 * (a failed attempt, a crash) is cancelled rather than tried again, since the newer one replaces it.
 */
export function prepareIsSuperseded(db: Db): (job: JobRow) => boolean {
  const newerQueued = db.prepare<[JobRow], { n: number }>(
    `SELECT count(*) AS n FROM jobs WHERE knowledge_base_id = @knowledge_base_id
       AND integration_id = @integration_id AND external_id = @external_id AND status = 'queued'`,
  );
  return (job) => newerQueued.get(job)!.n > 0;
}
