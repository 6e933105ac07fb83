import type { KeywordLanguage } from '../../common/contract/knowledge.ts';
import type { Db } from '../storage/db.ts';
import { KeywordIndex } from './keyword-index.ts';

/**
 * The in-memory keyword index of each language: English's from the start, another language's
 * the first time a search needs it (a knowledge base in that language), loading in the background
 * while FTS5 answers. Each has its own read connection.
 */
export class KeywordIndexes {
  private readonly others = new Map<KeywordLanguage, KeywordIndex>();

  constructor(
    private readonly db: Db,
    readonly english: KeywordIndex,
  ) {}

  of(language: KeywordLanguage): KeywordIndex {
    if (language === 'en') return this.english;
    let index = this.others.get(language);
    if (!index) this.others.set(language, (index = KeywordIndex.open(this.db, language)));
    return index;
  }

  /** Every index made so far: what the server's background pass follows. */
  all(): KeywordIndex[] {
    return [this.english, ...this.others.values()];
  }

  close(): void {
    for (const index of this.all()) index.close();
  }
}
