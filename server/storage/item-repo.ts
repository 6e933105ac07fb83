import type { Db } from './db.ts';
import { prepareNextItemSeq } from './item-seq.ts';
import type { ItemIdentity } from './job-repo.ts';

export type DeleteOutcome = { existed: boolean; cancelledJobs: number };

export class ItemRepo {
  private readonly stmts;
  private readonly nextSeq: () => number;

  constructor(private readonly db: Db) {
    this.nextSeq = prepareNextItemSeq(db);
    this.stmts = {
      liveVersion: db.prepare<[string, string, string], { n: number }>(
        `SELECT count(*) AS n FROM jobs j
         WHERE j.knowledge_base_id = ?1 AND j.integration_id = ?2 AND j.external_id = ?3
           AND j.status NOT IN ('cancelled', 'failed')
           AND j.seq > coalesce((SELECT seq FROM item_tombstones t
             WHERE t.knowledge_base_id = ?1 AND t.integration_id = ?2 AND t.external_id = ?3), 0)`,
      ),
      cancelQueued: db.prepare<[number, string, string, string]>(
        `UPDATE jobs SET status = 'cancelled', finished_at = ?1, updated_at = ?1
         WHERE knowledge_base_id = ?2 AND integration_id = ?3 AND external_id = ?4 AND status = 'queued'`,
      ),
      tombstone: db.prepare<[string, string, string, number, number]>(
        `INSERT INTO item_tombstones (knowledge_base_id, integration_id, external_id, seq, deleted_at)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET seq = excluded.seq, deleted_at = excluded.deleted_at`,
      ),
    };
  }

  /**
   * Deletes an item in one transaction: its queued job is cancelled and a tombstone with a new
   * seq makes sure a run of an older version that is still in flight cannot bring it back.
   */
  delete(identity: ItemIdentity, now: number): DeleteOutcome {
    const { knowledgeBaseId: kb, integrationId: integration, externalId: external } = identity;
    return this.db
      .transaction((): DeleteOutcome => {
        const existed = this.stmts.liveVersion.get(kb, integration, external)!.n > 0;
        if (!existed) return { existed: false, cancelledJobs: 0 };
        const cancelledJobs = this.stmts.cancelQueued.run(now, kb, integration, external).changes;
        this.stmts.tombstone.run(kb, integration, external, this.nextSeq(), now);
        return { existed: true, cancelledJobs };
      })
      .immediate();
  }
}
