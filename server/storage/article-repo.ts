import type { ArticleRecord } from '../domain/item-record.ts';
import type { Db } from './db.ts';


const COLUMNS =
  'id, knowledge_base_id AS knowledgeBaseId, integration_id AS integrationId, external_id AS externalId, title, content, url, ' +
  'created_at AS createdAt, updated_at AS updatedAt';

/** Published articles: indexed items of sourceType ARTICLE (an item is published once indexed). */
export class ArticleRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      list: db.prepare<[{ kbs: string | null; before: number | null; limit: number }], ArticleRecord>(
        `SELECT ${COLUMNS} FROM items
         WHERE source_type = 'ARTICLE'
           AND (@kbs IS NULL OR knowledge_base_id IN (SELECT value FROM json_each(@kbs)))
           AND (@before IS NULL OR id < @before)
         ORDER BY id DESC LIMIT @limit`,
      ),
      get: db.prepare<[number], ArticleRecord>(`SELECT ${COLUMNS} FROM items WHERE id = ? AND source_type = 'ARTICLE'`),
    };
  }

  /** Newest first; `knowledgeBaseIds` null for all; the cursor is the id of the previous page's last row. */
  list(knowledgeBaseIds: string[] | null, beforeId: number | null, limit: number): ArticleRecord[] {
    return this.stmts.list.all({ kbs: knowledgeBaseIds ? JSON.stringify(knowledgeBaseIds) : null, before: beforeId, limit });
  }

  get(id: number): ArticleRecord | null {
    return this.stmts.get.get(id) ?? null;
  }
}
