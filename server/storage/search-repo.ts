import type { Db } from './db.ts';
import type { ItemRow } from './item-read-repo.ts';

export type ItemSummaryRow = Pick<
  ItemRow,
  'id' | 'knowledge_base_id' | 'integration_id' | 'external_id' | 'source_type' | 'title' | 'url' | 'updated_at'
>;

export type ChunkRow = { id: number; item_id: number; position: number; text: string };

/** Title matches count three times as much as body matches in BM25 (measured on the eval sets). */
export const TITLE_WEIGHT = 3;

/** The read side of the index: the SQL behind keyword search and passage selection. */
export class SearchRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      keywordItems: db.prepare<[{ match: string; kb: string; types: string | null; limit: number }], { id: number; score: number }>(
        `SELECT i.id, -bm25(items_fts, ${TITLE_WEIGHT}, 1.0) AS score
         FROM items_fts JOIN items i ON i.id = items_fts.rowid
         WHERE items_fts MATCH @match AND i.knowledge_base_id = @kb
           AND (@types IS NULL OR i.source_type IN (SELECT value FROM json_each(@types)))
         ORDER BY score DESC LIMIT @limit`,
      ),
      keywordChunks: db.prepare<[{ match: string; ids: string }], { id: number; score: number }>(
        `SELECT c.id, -bm25(chunks_fts, ${TITLE_WEIGHT}, 1.0) AS score
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
         WHERE chunks_fts MATCH @match AND c.item_id IN (SELECT value FROM json_each(@ids))`,
      ),
      chunksOfItems: db.prepare<[string], ChunkRow>(
        'SELECT id, item_id, position, text FROM chunks WHERE item_id IN (SELECT value FROM json_each(?)) ORDER BY item_id, position',
      ),
      chunkItems: db.prepare<[string], { id: number; item_id: number; source_type: string }>(
        `SELECT c.id, c.item_id, i.source_type FROM chunks c JOIN items i ON i.id = c.item_id
         WHERE c.id IN (SELECT value FROM json_each(?))`,
      ),
      items: db.prepare<[string], ItemSummaryRow>(
        `SELECT id, knowledge_base_id, integration_id, external_id, source_type, title, url, updated_at
         FROM items WHERE id IN (SELECT value FROM json_each(?))`,
      ),
    };
  }

  keywordItems(kb: string, match: string, limit: number, sourceTypes: string[] | null): Array<{ id: number; score: number }> {
    return this.stmts.keywordItems.all({ match, kb, types: sourceTypes ? JSON.stringify(sourceTypes) : null, limit });
  }

  keywordChunks(match: string, itemIds: number[]): Map<number, number> {
    const rows = this.stmts.keywordChunks.all({ match, ids: JSON.stringify(itemIds) });
    return new Map(rows.map((r) => [r.id, r.score]));
  }

  chunksOfItems(itemIds: number[]): ChunkRow[] {
    return this.stmts.chunksOfItems.all(JSON.stringify(itemIds));
  }

  chunkItems(chunkIds: number[]): Map<number, { itemId: number; sourceType: string }> {
    const rows = this.stmts.chunkItems.all(JSON.stringify(chunkIds));
    return new Map(rows.map((r) => [r.id, { itemId: r.item_id, sourceType: r.source_type }]));
  }

  items(ids: number[]): Map<number, ItemSummaryRow> {
    return new Map(this.stmts.items.all(JSON.stringify(ids)).map((r) => [r.id, r]));
  }
}
