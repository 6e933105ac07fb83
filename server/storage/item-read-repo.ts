import type { IntegrationCount, ItemChunk, ItemRecord, KnowledgeBaseRecord } from '../domain/item-record.ts';
import type { ItemIdentity } from '../domain/job-record.ts';
import type { Db } from './db.ts';
import { type ItemRow, toItemRecord } from './item-rows.ts';
import { OPEN_STATUSES } from './jobs/sql.ts';


/** Reading indexed items and knowledge bases for the `iq:read` endpoints and the dashboard. */
export class ItemReadRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      knowledgeBases: db.prepare<[], KnowledgeBaseRecord>(
        `SELECT kb.id, kb.created_at AS createdAt, coalesce(ic.items, 0) AS itemCount, coalesce(ic.chunks, 0) AS chunkCount,
           (SELECT coalesce(sum(n), 0) FROM job_counts jc WHERE jc.knowledge_base_id = kb.id
              AND jc.status IN ${OPEN_STATUSES}) AS pendingJobs
         FROM knowledge_bases kb LEFT JOIN item_counts ic ON ic.knowledge_base_id = kb.id
         ORDER BY kb.id`,
      ),
      hasKnowledgeBase: db.prepare<[string], number>('SELECT 1 FROM knowledge_bases WHERE id = ?').pluck(),
      item: db.prepare<[ItemIdentity], ItemRow>(
        `SELECT * FROM items WHERE knowledge_base_id = @knowledgeBaseId AND integration_id = @integrationId
           AND external_id = @externalId`,
      ),
      chunks: db.prepare<[number], ItemChunk>(
        'SELECT id, position, text, token_count AS tokenCount, page, section FROM chunks WHERE item_id = ? ORDER BY position',
      ),
    };
  }

  knowledgeBases(): KnowledgeBaseRecord[] {
    return this.stmts.knowledgeBases.all();
  }

  /** Whether a push ever created this knowledge base. */
  hasKnowledgeBase(id: string): boolean {
    return this.stmts.hasKnowledgeBase.get(id) !== undefined;
  }

  /** Newest first; the cursor is the id of the last item of the previous page. */
  list(kb: string, filter: { sourceType?: string | undefined; integrationId?: string | undefined }, limit: number, beforeId: number | null): ItemRecord[] {
    const where = ['knowledge_base_id = ?'];
    const params: Array<string | number> = [kb];
    if (filter.sourceType) {
      where.push('source_type = ?');
      params.push(filter.sourceType);
    }
    if (filter.integrationId) {
      where.push('integration_id = ?');
      params.push(filter.integrationId);
    }
    if (beforeId !== null) {
      where.push('id < ?');
      params.push(beforeId);
    }
    return this.db
      .prepare<Array<string | number>, ItemRow>(`SELECT * FROM items WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`)
      .all(...params, limit)
      .map(toItemRecord);
  }

  get(identity: ItemIdentity): ItemRecord | null {
    const row = this.stmts.item.get(identity);
    return row ? toItemRecord(row) : null;
  }

  chunks(itemId: number): ItemChunk[] {
    return this.stmts.chunks.all(itemId);
  }

  /** The integrations that have items in a knowledge base, with their item counts, by name. */
  integrations(kb: string): IntegrationCount[] {
    // The identity's unique index (knowledge base, integration, external id) answers it without the rows.
    return this.db
      .prepare<[string], IntegrationCount>(
        'SELECT integration_id AS integrationId, count(*) AS itemCount FROM items WHERE knowledge_base_id = ? GROUP BY integration_id ORDER BY integration_id',
      )
      .all(kb);
  }
}
