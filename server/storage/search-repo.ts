import type { Db } from './db.ts';
import type { ChunkRecord, ItemSummary } from '../domain/item-record.ts';
import { ITEM_SUMMARY_COLUMNS } from './item-rows.ts';
import type { KeywordLanguage } from '../../common/contract/knowledge.ts';
import { keywordTables } from './keyword-rows.ts';
import { scopedQuery } from './keyword-scope.ts';


/**
 * BM25 weights of the keyword tables' columns: title, text, scope (a filter, weightless). Title
 * matches count three times as much as body matches (measured on the eval sets).
 */
export const ITEM_COLUMN_WEIGHTS = [3, 1, 0];
const BM25_WEIGHTS = ITEM_COLUMN_WEIGHTS.map((w) => w.toFixed(1)).join(', ');

/** The read side of the index: the SQL behind keyword search and passage selection. */
export class SearchRepo {
  private readonly stmts;
  private readonly keywordStmts = new Map<KeywordLanguage, ReturnType<typeof keywordStatements>>();

  constructor(private readonly db: Db) {
    this.stmts = {
      chunksOfItems: db.prepare<[string], ChunkRecord>(
        'SELECT id, item_id AS itemId, position, text, page, section, paragraph FROM chunks WHERE item_id IN (SELECT value FROM json_each(?)) ORDER BY item_id, position',
      ),
      chunkOwners: db.prepare<[string], { id: number; item_id: number }>(
        'SELECT id, item_id FROM chunks WHERE item_id IN (SELECT value FROM json_each(?))',
      ),
      textPhaseItems: db.prepare<[string], { id: number }>(
        "SELECT id FROM items WHERE id IN (SELECT value FROM json_each(?)) AND indexing = 'text'",
      ),
      items: db.prepare<[string], ItemSummary>(
        `SELECT ${ITEM_SUMMARY_COLUMNS}
         FROM items WHERE id IN (SELECT value FROM json_each(?))`,
      ),
    };
  }

  /**
   * `terms` is an FTS5 expression of the query's words (language/query-words.ts ftsQuery), or for a
   * language other than English of its terms (server/language/keyword-language.ts), searched in that
   * language's keyword table.
   */
  keywordItems(
    kb: string,
    terms: string,
    limit: number,
    sourceTypes: string[] | null,
    language: KeywordLanguage = 'en',
  ): Array<{ id: number; score: number }> {
    return this.keyword(language).items.all(scopedQuery(terms, { knowledgeBaseId: kb, sourceTypes }), limit);
  }

  /** BM25 of the chunks of these items that match `terms` (in the language's keyword table). */
  keywordChunks(terms: string, itemIds: number[], language: KeywordLanguage = 'en'): Map<number, number> {
    if (itemIds.length === 0) return new Map();
    const rows = this.keyword(language).chunks.all(scopedQuery(terms, { itemIds }));
    return new Map(rows.map((r) => [r.id, r.score]));
  }

  private keyword(language: KeywordLanguage): ReturnType<typeof keywordStatements> {
    let stmts = this.keywordStmts.get(language);
    if (!stmts) this.keywordStmts.set(language, (stmts = keywordStatements(this.db, language)));
    return stmts;
  }

  chunksOfItems(itemIds: number[]): ChunkRecord[] {
    return this.stmts.chunksOfItems.all(JSON.stringify(itemIds));
  }

  /** The item of each chunk of these items, by chunk id. */
  chunkOwners(itemIds: number[]): Map<number, number> {
    return new Map(this.stmts.chunkOwners.all(JSON.stringify(itemIds)).map((r) => [r.id, r.item_id]));
  }

  /** Those of these items whose text is indexed and whose vectors are still to come (items.indexing). */
  textPhaseItems(itemIds: number[]): Set<number> {
    if (itemIds.length === 0) return new Set();
    return new Set(this.stmts.textPhaseItems.all(JSON.stringify(itemIds)).map((r) => r.id));
  }

  items(ids: number[]): Map<number, ItemSummary> {
    return new Map(this.stmts.items.all(JSON.stringify(ids)).map((r) => [r.id, r]));
  }
}

/** Keyword search in one language's tables, scoped inside FTS5 (keyword-scope.ts); the scope column weighs 0. */
function keywordStatements(db: Db, language: KeywordLanguage) {
  const tables = keywordTables(language);
  return {
    items: db.prepare<[string, number], { id: number; score: number }>(
      `SELECT rowid AS id, -bm25(${tables.items}, ${BM25_WEIGHTS}) AS score
       FROM ${tables.items} WHERE ${tables.items} MATCH ? ORDER BY score DESC LIMIT ?`,
    ),
    chunks: db.prepare<[string], { id: number; score: number }>(
      `SELECT rowid AS id, -bm25(${tables.chunks}, ${BM25_WEIGHTS}) AS score FROM ${tables.chunks} WHERE ${tables.chunks} MATCH ?`,
    ),
  };
}
