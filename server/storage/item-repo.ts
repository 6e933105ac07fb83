import type { Db } from './db.ts';
import { IndexCleaner } from './index-repo.ts';
import { prepareNextItemSeq } from './item-seq.ts';
import { SETTLED_DATA, type ItemIdentity } from './job-repo.ts';

export type DeleteOutcome = { existed: boolean; cancelledJobs: number };

export class ItemRepo {
  private readonly stmts;
  private readonly nextSeq: (count?: number) => number;
  private readonly cleaner: IndexCleaner;

  constructor(private readonly db: Db) {
    this.nextSeq = prepareNextItemSeq(db);
    this.cleaner = new IndexCleaner(db);
    this.stmts = {
      liveVersion: db.prepare<[ItemIdentity], { n: number }>(
        `SELECT count(*) AS n FROM jobs j
         WHERE j.knowledge_base_id = @knowledgeBaseId AND j.integration_id = @integrationId
           AND j.external_id = @externalId AND j.status NOT IN ('cancelled', 'failed')
           AND j.seq > coalesce((SELECT seq FROM item_tombstones t
             WHERE t.knowledge_base_id = @knowledgeBaseId AND t.integration_id = @integrationId
               AND t.external_id = @externalId), 0)`,
      ),
      cancelQueued: db.prepare<[ItemIdentity & { now: number }]>(
        `UPDATE jobs SET status = 'cancelled', finished_at = @now, updated_at = @now, data = ${SETTLED_DATA}
         WHERE knowledge_base_id = @knowledgeBaseId AND integration_id = @integrationId
           AND external_id = @externalId AND status = 'queued'`,
      ),
      tombstone: db.prepare<[string, string, string, number, number]>(
        `INSERT INTO item_tombstones (knowledge_base_id, integration_id, external_id, seq, deleted_at)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET seq = excluded.seq, deleted_at = excluded.deleted_at`,
      ),
    };
  }

  /**
   * Deletes an item in one transaction: its indexed state goes, its queued job is cancelled, and a
   * tombstone with a new seq makes sure a run of an older version still in flight cannot bring it back.
   */
  delete(identity: ItemIdentity, now: number): DeleteOutcome {
    const { knowledgeBaseId, integrationId, externalId } = identity;
    const key = { knowledgeBaseId, integrationId, externalId };
    return this.db
      .transaction((): DeleteOutcome => {
        const pending = this.stmts.liveVersion.get(key)!.n > 0;
        const indexed = this.cleaner.removeItem(key);
        if (!pending && !indexed) return { existed: false, cancelledJobs: 0 };
        const cancelledJobs = this.stmts.cancelQueued.run({ ...key, now }).changes;
        this.stmts.tombstone.run(knowledgeBaseId, integrationId, externalId, this.nextSeq(), now);
        return { existed: true, cancelledJobs };
      })
      .immediate();
  }
}
