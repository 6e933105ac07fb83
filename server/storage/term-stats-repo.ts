import type { Db } from './db.ts';
import { scopedQuery } from './keyword-scope.ts';

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
        'SELECT coalesce(sum(chunks), 0) AS n FROM item_counts WHERE knowledge_base_id = ?',
      ),
      documentFrequency: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?'),
    };
  }

  chunkCount(knowledgeBaseId: string): number {
    return this.stmts.chunkCount.get(knowledgeBaseId)!.n;
  }

  /** `word` must be a bare word (letters and digits); it is quoted so it is never FTS5 syntax. */
  documentFrequency(knowledgeBaseId: string, word: string): number {
    const match = scopedQuery(`"${word.replaceAll('"', '')}"`, { knowledgeBaseId });
    return this.stmts.documentFrequency.get(match)!.n;
  }
}
