import type { Db } from './db.ts';
import type { ItemIdentity, JobRow } from './job-repo.ts';

/** The dashboard's live view of the queue: read-only aggregates over the job table. */
export class MonitorRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      queuedByPriority: db.prepare<[], { priority: number; n: number }>(
        "SELECT priority, count(*) AS n FROM jobs WHERE status = 'queued' GROUP BY priority",
      ),
      processing: db.prepare<[number], JobRow>(
        "SELECT * FROM jobs WHERE status = 'processing' ORDER BY started_at, id LIMIT ?",
      ),
      // The current run of work: everything finished since the oldest job still waiting was queued.
      progress: db.prepare<[], { pending: number; done: number }>(
        `WITH start AS (SELECT min(created_at) AS t FROM jobs WHERE status IN ('queued', 'processing'))
         SELECT
           (SELECT count(*) FROM jobs WHERE status IN ('queued', 'processing')) AS pending,
           (SELECT count(*) FROM jobs, start WHERE start.t IS NOT NULL AND finished_at >= start.t
              AND status IN ('succeeded', 'skipped', 'failed', 'cancelled')) AS done`,
      ),
      changedSince: db.prepare<[number, number], JobRow>(
        'SELECT * FROM jobs WHERE updated_at >= ? ORDER BY updated_at DESC, id DESC LIMIT ?',
      ),
      itemJobs: db.prepare<[string, string, string, number], JobRow>(
        `SELECT * FROM jobs WHERE knowledge_base_id = ? AND integration_id = ? AND external_id = ?
         ORDER BY id DESC LIMIT ?`,
      ),
      lastChange: db.prepare<[], { t: number | null; n: number }>('SELECT max(updated_at) AS t, count(*) AS n FROM jobs'),
    };
  }

  queuedByPriority(): Map<number, number> {
    return new Map(this.stmts.queuedByPriority.all().map((r) => [r.priority, r.n]));
  }

  processing(limit: number): JobRow[] {
    return this.stmts.processing.all(limit);
  }

  progress(): { pending: number; done: number } {
    return this.stmts.progress.get()!;
  }

  changedSince(since: number, limit: number): JobRow[] {
    return this.stmts.changedSince.all(since, limit);
  }

  /** An item's job history, newest first. */
  itemJobs(identity: ItemIdentity, limit: number): JobRow[] {
    return this.stmts.itemJobs.all(identity.knowledgeBaseId, identity.integrationId, identity.externalId, limit);
  }

  /** A cheap fingerprint of the job table: when it is unchanged, there is nothing to send. */
  fingerprint(): string {
    const row = this.stmts.lastChange.get()!;
    return `${row.t ?? 0}:${row.n}`;
  }
}
