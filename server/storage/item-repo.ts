import type { ItemIdentity } from '../domain/job-record.ts';
import type { Db } from './db.ts';
import { IndexCleaner } from './index-repo.ts';
import { prepareNextItemSeq } from './item-seq.ts';
import { prepareCancelOnDelete } from './jobs/index.ts';
import { sqlList } from './jobs/sql.ts';
import type { Originals } from './originals.ts';

export type DeleteOutcome = { existed: boolean; cancelledJobs: number };

/** Who asked for a deletion: an API key, or a dashboard user. */
/** Who deleted an item: an API key, a dashboard user, or a website source's sync (a page gone from the site). */
export type DeletedBy = { keyId: string } | { userId: string } | { websiteSourceId: string };

export type Deletion = { deletedAt: number; keyId: string | null; keyName: string | null; username: string | null };

export class ItemRepo {
  private readonly stmts;
  private readonly nextSeq: (count?: number) => number;
  private readonly cleaner: IndexCleaner;
  private readonly cancelOpenJobs: (identity: ItemIdentity, now: number) => number;

  constructor(
    private readonly db: Db,
    /** Uploaded files' originals: one goes with the last item (or job) that uses it. */
    private readonly originals: Originals | null = null,
  ) {
    this.nextSeq = prepareNextItemSeq(db);
    this.cleaner = new IndexCleaner(db);
    this.cancelOpenJobs = prepareCancelOnDelete(db);
    this.stmts = {
      // The originals this item and its jobs name (files as knowledge), to remove once unused.
      originalsOf: db.prepare<[ItemIdentity], string>(
        `SELECT original_sha256 FROM items WHERE knowledge_base_id = @knowledgeBaseId
           AND integration_id = @integrationId AND external_id = @externalId AND original_sha256 IS NOT NULL
         UNION SELECT json_extract(data, '$.file.sha256') FROM jobs WHERE knowledge_base_id = @knowledgeBaseId
           AND integration_id = @integrationId AND external_id = @externalId AND json_extract(data, '$.file.sha256') IS NOT NULL`,
      ).pluck(),
      // A version pushed since the last deletion that has not been given up on.
      liveVersion: db.prepare<[ItemIdentity], { n: number }>(
        `SELECT count(*) AS n FROM jobs j
         WHERE j.knowledge_base_id = @knowledgeBaseId AND j.integration_id = @integrationId
           AND j.external_id = @externalId AND j.status NOT IN ${sqlList(['cancelled', 'failed'])}
           AND j.seq > coalesce((SELECT seq FROM item_tombstones t
             WHERE t.knowledge_base_id = @knowledgeBaseId AND t.integration_id = @integrationId
               AND t.external_id = @externalId), 0)`,
      ),
      tombstone: db.prepare<[string, string, string, number, number, string | null, string | null]>(
        `INSERT INTO item_tombstones (knowledge_base_id, integration_id, external_id, seq, deleted_at,
           deleted_by_key_id, deleted_by_user_id)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET seq = excluded.seq, deleted_at = excluded.deleted_at,
           deleted_by_key_id = excluded.deleted_by_key_id, deleted_by_user_id = excluded.deleted_by_user_id`,
      ),
      // The item's deletion, when nothing was pushed after it.
      deletion: db.prepare<[ItemIdentity], { deleted_at: number; key_id: string | null; key_name: string | null; username: string | null }>(
        `SELECT t.deleted_at, t.deleted_by_key_id AS key_id, k.name AS key_name, u.username
         FROM item_tombstones t
         LEFT JOIN api_keys k ON k.id = t.deleted_by_key_id
         LEFT JOIN users u ON u.id = t.deleted_by_user_id
         WHERE t.knowledge_base_id = @knowledgeBaseId AND t.integration_id = @integrationId
           AND t.external_id = @externalId
           AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.knowledge_base_id = t.knowledge_base_id
             AND j.integration_id = t.integration_id AND j.external_id = t.external_id AND j.seq > t.seq)`,
      ),
    };
  }

  /**
   * Deletes an item in one transaction: its indexed state goes, its queued or running job is
   * cancelled (jobs/cancel-on-delete.ts), and a tombstone with a new seq makes sure a run of an older version still in flight
   * cannot bring it back.
   */
  delete(identity: ItemIdentity, now: number, by: DeletedBy): DeleteOutcome {
    const { knowledgeBaseId, integrationId, externalId } = identity;
    const key = { knowledgeBaseId, integrationId, externalId };
    let originals: string[] = [];
    const outcome = this.db
      .transaction((): DeleteOutcome => {
        if (this.originals) originals = this.stmts.originalsOf.all(key);
        const pending = this.stmts.liveVersion.get(key)!.n > 0;
        const indexed = this.cleaner.removeItem(key);
        if (!pending && !indexed) return { existed: false, cancelledJobs: 0 };
        const cancelledJobs = this.cancelOpenJobs(key, now);
        const keyId = 'keyId' in by ? by.keyId : null;
        const userId = 'userId' in by ? by.userId : null;
        this.stmts.tombstone.run(knowledgeBaseId, integrationId, externalId, this.nextSeq(), now, keyId, userId);
        return { existed: true, cancelledJobs };
      })
      .immediate();
    if (originals.length > 0) this.originals!.removeUnused(this.db, originals);
    return outcome;
  }

  /** When and by whom the item was deleted, unless it was pushed again since. */
  deletion(identity: ItemIdentity): Deletion | null {
    const { knowledgeBaseId, integrationId, externalId } = identity;
    const row = this.stmts.deletion.get({ knowledgeBaseId, integrationId, externalId });
    return row ? { deletedAt: row.deleted_at, keyId: row.key_id, keyName: row.key_name, username: row.username } : null;
  }
}
