import type { Db } from './db.ts';

export type ArticleRow = {
  id: number;
  knowledge_base_id: string;
  integration_id: string;
  external_id: string;
  title: string;
  content: string;
  url: string | null;
  created_at: number;
  updated_at: number;
};

const COLUMNS = 'id, knowledge_base_id, integration_id, external_id, title, content, url, created_at, updated_at';

/** Published articles: indexed items of sourceType ARTICLE (an item is published once indexed). */
export class ArticleRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      list: db.prepare<[{ kbs: string | null; before: number | null; limit: number }], ArticleRow>(
        `SELECT ${COLUMNS} FROM items
         WHERE source_type = 'ARTICLE'
           AND (@kbs IS NULL OR knowledge_base_id IN (SELECT value FROM json_each(@kbs)))
           AND (@before IS NULL OR id < @before)
         ORDER BY id DESC LIMIT @limit`,
      ),
      get: db.prepare<[number], ArticleRow>(`SELECT ${COLUMNS} FROM items WHERE id = ? AND source_type = 'ARTICLE'`),
    };
  }

  /** Newest first; `knowledgeBaseIds` null for all; the cursor is the id of the previous page's last row. */
  list(knowledgeBaseIds: string[] | null, beforeId: number | null, limit: number): ArticleRow[] {
    return this.stmts.list.all({ kbs: knowledgeBaseIds ? JSON.stringify(knowledgeBaseIds) : null, before: beforeId, limit });
  }

  get(id: number): ArticleRow | null {
    return this.stmts.get.get(id) ?? null;
  }
}
