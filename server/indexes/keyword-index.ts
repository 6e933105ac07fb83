import { type Db, openReader } from '../storage/db.ts';
import { FtsTokenizer } from '../storage/fts-tokenizer.ts';
import { type ItemText, itemTextFeed } from '../storage/item-text-feed.ts';
import { scopeColumn } from '../storage/keyword-scope.ts';
import { ITEM_COLUMN_WEIGHTS } from '../storage/search-repo.ts';
import { Bm25Postings } from './bm25-postings.ts';
import { FollowedIndex } from './followed-index.ts';

/**
 * Items tokenized (or changes applied) between two looks at the clock: one, as the first items
 * after a start-up, before the tokenizer knows their words, take a millisecond or more each
 * (eight at a time held the first pushes after a start-up for 300 ms: bench/diagnostics/startup-waits.ts).
 * The price: an idle load takes about a tenth longer (docs/benchmarks.md).
 */
const LOAD_STEP = 1;

/**
 * Keyword search over items in memory: the rows of items_fts (title, text, scope) tokenized by
 * FTS5's own tokenizer and scored by FTS5's bm25() over the live rows (bm25-postings.ts),
 * following the items table through the item change log (followed-index.ts). It ranks as the FTS5
 * statement does, without FTS5's cost per matching row (a query's common words match half of a
 * knowledge base). Until it is loaded, and for a query word FTS5 would split into several tokens
 * (a phrase), the caller asks FTS5 itself.
 */
export class KeywordIndex extends FollowedIndex<ItemText> {
  private postings = new Bm25Postings();
  private readonly knowledgeBases = new Map<string, number>();
  private readonly sourceTypes = new Map<string, number>();

  private readonly tokenizer: FtsTokenizer;

  /** Reads on a connection of its own, opened on `db`'s file; `close` closes it. */
  constructor(private readonly reader: Db) {
    super(itemTextFeed(reader), LOAD_STEP);
    this.tokenizer = new FtsTokenizer(reader, 'items_fts');
  }

  static open(db: Db): KeywordIndex {
    return new KeywordIndex(openReader(db));
  }

  close(): void {
    this.stop();
    this.tokenizer.close();
    this.reader.close();
  }

  /**
   * The `limit` best items of a knowledge base for an OR of query words (by BM25, best first), or
   * null when FTS5 must answer: not loaded yet (a background load starts) or a word is a phrase.
   * With `allWordsFirst`, items holding every word rank before those holding only some.
   */
  search(
    knowledgeBaseId: string,
    words: string[],
    limit: number,
    sourceTypes: string[] | null,
    allWordsFirst = false,
  ): Array<{ id: number; score: number }> | null {
    if (!this.loaded) {
      this.follow();
      return null;
    }
    this.refresh();
    const terms: number[] = [];
    for (const word of words) {
      const wordTerms = this.tokenizer.termIds(word);
      if (wordTerms.length !== 1) return null;
      terms.push(wordTerms[0]!);
    }
    const group = this.knowledgeBases.get(knowledgeBaseId);
    if (group === undefined) return [];
    let kinds: Set<number> | null = null;
    if (sourceTypes) {
      kinds = new Set(sourceTypes.flatMap((t) => (this.sourceTypes.has(t) ? [this.sourceTypes.get(t)!] : [])));
      if (kinds.size === 0) return [];
    }
    return this.postings.search(terms, group, kinds, limit, allWordsFirst);
  }

  protected clear(): void {
    this.postings = new Bm25Postings();
  }

  protected remove(itemId: number): void {
    this.postings.remove(itemId);
  }

  protected put(item: ItemText): void {
    const columns = [item.title, item.text, scopeColumn(item.knowledgeBaseId, item.sourceType)];
    this.postings.put({
      id: item.id,
      group: code(this.knowledgeBases, item.knowledgeBaseId),
      kind: code(this.sourceTypes, item.sourceType),
      ...this.tokenizer.weigh(columns, ITEM_COLUMN_WEIGHTS),
    });
  }
}

function code(codes: Map<string, number>, name: string): number {
  let value = codes.get(name);
  if (value === undefined) codes.set(name, (value = codes.size));
  return value;
}
