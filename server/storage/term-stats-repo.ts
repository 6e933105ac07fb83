import type { KeywordLanguage } from '../../common/contract/knowledge.ts';
import { isAnalyzed, keywordTerms } from '../language/keyword-language.ts';
import type { Db } from './db.ts';
import { keywordTables } from './keyword-rows.ts';
import { scopedQuery } from './keyword-scope.ts';

/**
 * How many chunks of a knowledge base contain a word: the document frequencies the assistant
 * weighs question words by (a rare word says more about where the answer is than a common one).
 * The word is read as the knowledge base's keyword index reads it: FTS5's Porter stemmer for
 * English, the language's terms otherwise (server/language/keyword-language.ts).
 */
export class TermStatsRepo {
  private readonly stmts;
  private readonly frequencies = new Map<KeywordLanguage, (match: string) => number>();

  constructor(private readonly db: Db) {
    this.stmts = {
      chunkCount: db.prepare<[string], { n: number }>(
        'SELECT coalesce(sum(chunks), 0) AS n FROM item_counts WHERE knowledge_base_id = ?',
      ),
      language: db.prepare<[string], { language: KeywordLanguage }>(
        'SELECT language FROM knowledge_base_languages WHERE knowledge_base_id = ?',
      ),
    };
  }

  chunkCount(knowledgeBaseId: string): number {
    return this.stmts.chunkCount.get(knowledgeBaseId)!.n;
  }

  /**
   * `word` must be a bare word (letters and digits); it is quoted so it is never FTS5 syntax. A
   * stop word of the knowledge base's language is in no keyword row: it counts as in every chunk.
   */
  documentFrequency(knowledgeBaseId: string, word: string): number {
    const language = this.stmts.language.get(knowledgeBaseId)?.language ?? 'en';
    let term = word.replaceAll('"', '');
    if (isAnalyzed(language)) {
      const terms = keywordTerms(language, term);
      if (terms.length === 0) return this.chunkCount(knowledgeBaseId);
      term = terms[0]!;
    }
    return this.frequency(language)(scopedQuery(`"${term}"`, { knowledgeBaseId }));
  }

  private frequency(language: KeywordLanguage): (match: string) => number {
    let count = this.frequencies.get(language);
    if (!count) {
      const { chunks } = keywordTables(language);
      const stmt = this.db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM ${chunks} WHERE ${chunks} MATCH ?`);
      this.frequencies.set(language, (count = (match) => stmt.get(match)!.n));
    }
    return count;
  }
}
