import type { Db } from '../db.ts';
import type { ClaimedJob } from '../../domain/job-record.ts';
import { type JobRow, toClaimedJob } from './job-row.ts';

/**
 * The text phase of queued jobs (jobs.text_pending, docs/pipeline.md "Two phases"): not a change
 * of the job's state, which the embedding pass still drives, but a flag beside it.
 * - `claim`: up to `limit` jobs whose text phase waits, in order of acknowledgement, marked held
 *   (2) so that another claim passes them over;
 * - `done`: the text of this version is written (or was not needed): the flag goes, unless a
 *   newer push replaced the payload meanwhile (replace.ts set the flag again);
 * - `release`: held flags back to waiting: all of them at start-up, after the text phase thread died,
 *   or a pass's own jobs it could not write. A text written twice is refused by its seq.
 * A job that settles loses its flag by trigger (migration jobs_text_pending_settled).
 */
export function prepareTextPhase(db: Db) {
  const claim = db.prepare<[number], JobRow>(
    `UPDATE jobs SET text_pending = 2
     WHERE id IN (SELECT id FROM jobs INDEXED BY jobs_text_pending WHERE text_pending <> 0 AND text_pending = 1 ORDER BY id LIMIT ?)
     RETURNING *`,
  );
  const done = db.prepare<[number, number]>('UPDATE jobs SET text_pending = 0 WHERE id = ? AND seq = ? AND text_pending <> 0');
  const releaseAll = db.prepare<[]>('UPDATE jobs INDEXED BY jobs_text_pending SET text_pending = 1 WHERE text_pending <> 0 AND text_pending = 2');
  const releaseOne = db.prepare<[number]>('UPDATE jobs SET text_pending = 1 WHERE id = ? AND text_pending = 2');
  return {
    claim: (limit: number): ClaimedJob[] =>
      db
        .transaction(() => claim.all(limit))
        .immediate()
        .sort((a, b) => a.id - b.id)
        .map(toClaimedJob),
    /** Inside the caller's transaction, with the text's write. */
    done: (id: number, seq: number): void => void done.run(id, seq),
    release: (ids?: number[]): number => {
      if (!ids) return releaseAll.run().changes;
      let released = 0;
      for (const id of ids) released += releaseOne.run(id).changes;
      return released;
    },
  };
}

export type TextPhase = ReturnType<typeof prepareTextPhase>;
