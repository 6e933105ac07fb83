import type { HistoryPosition, JobHistoryStore } from '../domain/job-history-retention.ts';
import type { Db } from './db.ts';
import type { Originals } from './originals.ts';

type FinishedJob = { id: number; knowledge_base_id: string; integration_id: string; external_id: string; finished_at: number };

/**
 * The job history's clean-up. Each push of an item adds a job, so an unchanged catalogue re-synced
 * every night adds a job per item per night. A job that finished before a cutoff is removed once a
 * newer job of the same item exists; an item's newest job stays whatever its age, so
 * `GET /jobs/{jobId}` keeps answering with the item's latest state. The usage counters are kept
 * in their own table and do not change. A removed job that was an uploaded file's (a failed one
 * keeps its payload for a retry, and so holds its original) lets that original go once nothing
 * else uses it.
 */
export class JobHistory implements JobHistoryStore {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly originals: Originals | null = null,
  ) {
    this.stmts = {
      // Oldest finished first, from where the pass got to: a range of the finishing-time index.
      page: db.prepare<[{ cutoff: number; finishedAt: number; id: number; limit: number }], FinishedJob>(
        `SELECT id, knowledge_base_id, integration_id, external_id, finished_at FROM jobs
         WHERE finished_at IS NOT NULL AND finished_at < @cutoff AND (finished_at, id) > (@finishedAt, @id)
         ORDER BY finished_at, id LIMIT @limit`,
      ),
      removeSuperseded: db.prepare<[FinishedJob], { sha256: string | null }>(
        `DELETE FROM jobs WHERE id = @id AND EXISTS (
           SELECT 1 FROM jobs newer WHERE newer.integration_id = @integration_id AND newer.external_id = @external_id
             AND newer.knowledge_base_id = @knowledge_base_id AND newer.id > @id)
         RETURNING json_extract(data, '$.file.sha256') AS sha256`,
      ),
    };
  }

  /**
   * Reads up to `limit` jobs finished before `cutoff`, after `from`, and removes those a newer job
   * of their item supersedes. `next` is where the next page starts; null when there is none.
   */
  prune(cutoff: number, from: HistoryPosition | null, limit: number): { removed: number; next: HistoryPosition | null } {
    const originals: string[] = [];
    const result = this.db
      .transaction(() => {
        const page = this.stmts.page.all({ cutoff, finishedAt: from?.finishedAt ?? -1, id: from?.id ?? -1, limit });
        let removed = 0;
        for (const job of page) {
          const gone = this.stmts.removeSuperseded.get(job);
          if (!gone) continue;
          removed++;
          if (gone.sha256) originals.push(gone.sha256);
        }
        const last = page.at(-1);
        return { removed, next: last && page.length === limit ? { finishedAt: last.finished_at, id: last.id } : null };
      })
      .immediate();
    if (originals.length > 0) this.originals?.removeUnused(this.db, originals);
    return result;
  }
}
