import type { Db } from './db.ts';

/**
 * How many chunks of a knowledge base contain a word: the document frequencies the assistant
 * weighs question words by (a rare word says more about where the answer is than a common one).
 * FTS5 applies its own stemming to the word, as it does for search.
 */
export class TermStatsRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      chunkCount: db.prepare<[string], { n: number }>(
        'SELECT coalesce(sum(chunk_count), 0) AS n FROM items WHERE knowledge_base_id = ?',
      ),
      documentFrequency: db.prepare<[string, string], { n: number }>(
        `SELECT count(*) AS n FROM chunks_fts f JOIN chunks c ON c.id = f.rowid JOIN items i ON i.id = c.item_id
         WHERE chunks_fts MATCH ? AND i.knowledge_base_id = ?`,
      ),
    };
  }

  chunkCount(knowledgeBaseId: string): number {
    return this.stmts.chunkCount.get(knowledgeBaseId)!.n;
  }

  /** `word` must be a bare word (letters and digits); it is quoted so it is never FTS5 syntax. */
  documentFrequency(knowledgeBaseId: string, word: string): number {
    return this.stmts.documentFrequency.get(`"${word.replaceAll('"', '')}"`, knowledgeBaseId)!.n;
  }
}
