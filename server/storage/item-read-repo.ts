import type { ItemIdentity } from '../domain/job-record.ts';
import type { Db } from './db.ts';
import { OPEN_STATUSES } from './jobs/sql.ts';

export type ItemRow = {
  id: number;
  knowledge_base_id: string;
  integration_id: string;
  external_id: string;
  source_type: string;
  title: string;
  content: string;
  text: string;
  url: string | null;
  source_data: string | null;
  content_hash: string;
  chunk_count: number;
  embedder_id: string;
  /** 'text' while its chunks wait for their vectors (keyword search finds it already), then 'complete'. */
  indexing: 'text' | 'complete';
  created_at: number;
  updated_at: number;
  /** SHA-256 of the uploaded file it was extracted from (files as knowledge), else null. */
  original_sha256: string | null;
};

export type KnowledgeBaseRow = { id: string; created_at: number; item_count: number; chunk_count: number; pending_jobs: number };

/** Reading indexed items and knowledge bases for the `iq:read` endpoints and the dashboard. */
export class ItemReadRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      knowledgeBases: db.prepare<[], KnowledgeBaseRow>(
        `SELECT kb.id, kb.created_at, coalesce(ic.items, 0) AS item_count, coalesce(ic.chunks, 0) AS chunk_count,
           (SELECT coalesce(sum(n), 0) FROM job_counts jc WHERE jc.knowledge_base_id = kb.id
              AND jc.status IN ${OPEN_STATUSES}) AS pending_jobs
         FROM knowledge_bases kb LEFT JOIN item_counts ic ON ic.knowledge_base_id = kb.id
         ORDER BY kb.id`,
      ),
      hasKnowledgeBase: db.prepare<[string], number>('SELECT 1 FROM knowledge_bases WHERE id = ?').pluck(),
      item: db.prepare<[ItemIdentity], ItemRow>(
        `SELECT * FROM items WHERE knowledge_base_id = @knowledgeBaseId AND integration_id = @integrationId
           AND external_id = @externalId`,
      ),
      chunks: db.prepare<
        [number],
        { id: number; position: number; text: string; token_count: number; page: number | null; section: string | null }
      >(
        'SELECT id, position, text, token_count, page, section FROM chunks WHERE item_id = ? ORDER BY position',
      ),
    };
  }

  knowledgeBases(): KnowledgeBaseRow[] {
    return this.stmts.knowledgeBases.all();
  }

  /** Whether a push ever created this knowledge base. */
  hasKnowledgeBase(id: string): boolean {
    return this.stmts.hasKnowledgeBase.get(id) !== undefined;
  }

  /** Newest first; the cursor is the id of the last item of the previous page. */
  list(kb: string, filter: { sourceType?: string | undefined; integrationId?: string | undefined }, limit: number, beforeId: number | null): ItemRow[] {
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
      .all(...params, limit);
  }

  get(identity: ItemIdentity): ItemRow | null {
    return this.stmts.item.get(identity) ?? null;
  }

  chunks(itemId: number) {
    return this.stmts.chunks.all(itemId);
  }

  /** The integrations that have items in a knowledge base, with their item counts, by name. */
  integrations(kb: string): Array<{ integration_id: string; item_count: number }> {
    // The identity's unique index (knowledge base, integration, external id) answers it without the rows.
    return this.db
      .prepare<[string], { integration_id: string; item_count: number }>(
        'SELECT integration_id, count(*) AS item_count FROM items WHERE knowledge_base_id = ? GROUP BY integration_id ORDER BY integration_id',
      )
      .all(kb);
  }
}
