import type { KeywordLanguage } from '../../common/contract/knowledge.ts';
import { INDEX_WORD } from '../language/index-words.ts';
import { type AnalyzedLanguage, isAnalyzed, keywordText } from '../language/keyword-language.ts';
import { type Db, openReader } from '../storage/db.ts';
import { FtsTokenizer } from '../storage/fts-tokenizer.ts';
import { type ItemText, itemTextFeed } from '../storage/item-text-feed.ts';
import { keywordTables } from '../storage/keyword-rows.ts';
import { scopeColumn } from '../storage/keyword-scope.ts';
import { ITEM_COLUMN_WEIGHTS } from '../storage/search-repo.ts';
import { Bm25Postings, type QueryTerm } from './bm25-postings.ts';
import { FollowedIndex } from './followed-index.ts';
import { type NearWord, TypoVocabulary } from './typo-vocabulary.ts';

/**
 * Items tokenized (or changes applied) between two looks at the clock: one, as the first items
 * after a start-up, before the tokenizer knows their words, take a millisecond or more each
 * (eight at a time held the first pushes after a start-up for 300 ms: bench/diagnostics/startup-waits.ts).
 * The price: an idle load takes about a tenth longer (docs/benchmarks.md).
 */
const LOAD_STEP = 1;
/** A candidate correction's items are counted up to this many (enough to rank it among others). */
const COUNTED_DOCUMENTS = 1_000;
/**
 * Rare words looked up among their neighbours per query, in the query's order: each lookup costs
 * about a quarter of a millisecond at 100,000 chunks, and a pasted paragraph can hold a hundred.
 */
const MOST_LOOKUPS = 8;
/** Distinct written words remembered per index as learned; past this the set starts again. */
const WRITTEN_SEEN_LIMIT = 500_000;

/**
 * A query word, the edits a correction of it may be away (0: it is taken only as typed), and the
 * terms the knowledge base's synonyms add for it (words or phrases, as synonym sets store them).
 */
export type QueryWord = { word: string; typos: number; synonyms?: readonly string[] };

/** How synonyms are searched; retrieval/search.ts holds the weight and asks FTS5 for phrases. */
export type SynonymReading = {
  /** The weight of a synonym's BM25 share, below 1 so that items holding the word as typed come first. */
  weight: number;
  /** The items holding a phrase (several terms), with FTS5's bm25() of the phrase alone. */
  phraseRows: (phrase: string) => ReadonlyArray<{ id: number; score: number }>;
};

/** How misspelt words are read; retrieval/search.ts holds the measured values. */
export type TypoReading = {
  /** A word found in fewer of the knowledge base's items than this is looked up among its neighbours. */
  rareBelow: number;
  /** The weight of a correction's BM25 share, below 1 so that items holding the word as typed come first. */
  weight: number;
  /** Corrections kept per word: the most frequent at the smallest distance found. */
  alternatives: number;
};

/** A query word read as other words of the knowledge base. */
export type Correction = {
  word: string;
  /** The words searched for it, best first, as written in the items (lower case). */
  replacements: string[];
  /** The word as typed is in none of the knowledge base's items. */
  absent: boolean;
};

/**
 * Keyword search over items in memory: the rows of items_fts (title, text, scope) tokenized by
 * FTS5's own tokenizer and scored by FTS5's bm25() over the live rows (bm25-postings.ts),
 * following the items table through the item change log (followed-index.ts). It ranks as the FTS5
 * statement does, without FTS5's cost per matching row (a query's common words match half of a
 * knowledge base). Until it is loaded, and for a query word FTS5 would split into several tokens
 * (a phrase), the caller asks FTS5 itself.
 *
 * One index per keyword language (keyword-indexes.ts): English mirrors items_fts; another
 * language mirrors its own table (items_fts_de, …), its rows read into terms as they are written
 * (server/language/keyword-language.ts) and its queries given as terms (`search`) or as written
 * words (`tolerantSearch`, whose vocabulary holds the written words with their terms).
 */
export class KeywordIndex extends FollowedIndex<ItemText> {
  /** The written words of every indexed row (follows the rows: `put` shows terms, packs prune them). */
  private readonly vocabulary = new TypoVocabulary();
  private postings = this.newPostings();
  private readonly knowledgeBases = new Map<string, number>();
  private readonly sourceTypes = new Map<string, number>();

  private readonly tokenizer: FtsTokenizer;
  /** Written words of another language's items already given to the vocabulary (learnWrittenWords). */
  private readonly writtenSeen = new Set<string>();

  /** Reads on a connection of its own, opened on `db`'s file; `close` closes it. */
  constructor(
    private readonly reader: Db,
    private readonly language: KeywordLanguage = 'en',
  ) {
    super(itemTextFeed(reader, language), LOAD_STEP);
    this.tokenizer = new FtsTokenizer(reader, keywordTables(language).items);
  }

  static open(db: Db, language: KeywordLanguage = 'en'): KeywordIndex {
    return new KeywordIndex(openReader(db), language);
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

  /**
   * `search` that forgives typos: a word allowed typos and rare in the knowledge base (absent
   * included) is searched together with the knowledge base's more frequent words within that many
   * edits, weighted below it (`TypoReading`). Null when FTS5 must answer, as for `search`.
   */
  tolerantSearch(
    knowledgeBaseId: string,
    words: QueryWord[],
    limit: number,
    sourceTypes: string[] | null,
    allWordsFirst: boolean,
    reading: TypoReading,
    synonymReading: SynonymReading | null = null,
  ): { hits: Array<{ id: number; score: number }>; corrections: Correction[] } | null {
    if (!this.loaded) {
      this.follow();
      return null;
    }
    this.refresh();
    const terms: number[] = [];
    for (const { word } of words) {
      const wordTerms = this.tokenizer.termIds(this.asStored(word));
      if (wordTerms.length !== 1) return null;
      terms.push(wordTerms[0]!);
    }
    const group = this.knowledgeBases.get(knowledgeBaseId);
    if (group === undefined) return { hits: [], corrections: [] };
    let kinds: Set<number> | null = null;
    if (sourceTypes) {
      kinds = new Set(sourceTypes.flatMap((t) => (this.sourceTypes.has(t) ? [this.sourceTypes.get(t)!] : [])));
      if (kinds.size === 0) return { hits: [], corrections: [] };
    }
    const query: QueryTerm[] = [];
    const corrections: Correction[] = [];
    let lookups = 0;
    words.forEach(({ word, typos, synonyms }, i) => {
      const term = terms[i]!;
      query.push({ term, word: i, weight: 1 });
      if (synonyms?.length && synonymReading) query.push(...this.synonymTerms(synonyms, term, i, synonymReading));
      if (typos === 0 || lookups === MOST_LOOKUPS) return;
      const own = this.postings.documents(term, group, reading.rareBelow);
      if (own >= reading.rareBelow) return;
      lookups++;
      const near = this.corrections(word, typos, term, own, group, reading.alternatives);
      if (near.length === 0) return;
      for (const correction of near) query.push({ term: correction.term, word: i, weight: reading.weight });
      corrections.push({ word, replacements: near.map((c) => c.word), absent: own === 0 });
    });
    return { hits: this.postings.searchWeighted(query, words.length, group, kinds, limit, allWordsFirst), corrections };
  }

  /**
   * The query terms of a word's synonyms: a one-term synonym as a term weighted below the word,
   * its IDF capped by the word's; a phrase as the rows FTS5 finds holding it, likewise weighted.
   */
  private synonymTerms(synonyms: readonly string[], own: number, word: number, reading: SynonymReading): QueryTerm[] {
    // Forms of one stem ("couch", "couches") are one term: counted once, like the word's own.
    const seen = new Set([own]);
    return synonyms.flatMap((synonym): QueryTerm[] => {
      const termIds = this.tokenizer.termIds(this.asStored(synonym));
      if (termIds.length === 0) return [];
      if (termIds.length > 1) return [{ rows: reading.phraseRows(synonym), word, weight: reading.weight }];
      const term = termIds[0]!;
      if (seen.has(term)) return [];
      seen.add(term);
      return [{ term, word, weight: reading.weight, idfAtMost: own }];
    });
  }

  /** A written word as the keyword table holds it: as written in English, as its term in another language. */
  private asStored(word: string): string {
    return isAnalyzed(this.language) ? keywordText(this.language, word) : word;
  }

  /** What the vocabulary of written words holds: words, and the bytes of its bigram lists. */
  vocabularySize(): { words: number; listBytes: number } {
    return { words: this.vocabulary.size, listBytes: this.vocabulary.listBytes };
  }

  /**
   * The terms within `typos` edits of a word found in more of the group's items than it (`own`):
   * those at the smallest distance, the most frequent first, each with its closest written word.
   */
  private corrections(word: string, typos: number, own: number, ownCount: number, group: number, count: number): NearWord[] {
    const closest = new Map<number, NearWord>();
    for (const near of this.vocabulary.near(word, typos)) {
      if (near.term === own) continue;
      const known = closest.get(near.term);
      if (!known || near.distance < known.distance) closest.set(near.term, near);
    }
    const found = [...closest.values()]
      .map((near) => ({ near, documents: this.postings.documents(near.term, group, COUNTED_DOCUMENTS) }))
      .filter((c) => c.documents > ownCount);
    const distance = Math.min(...found.map((c) => c.near.distance));
    return found
      .filter((c) => c.near.distance === distance)
      .sort((a, b) => b.documents - a.documents || (a.near.word < b.near.word ? -1 : 1))
      .slice(0, count)
      .map((c) => c.near);
  }

  protected clear(): void {
    this.postings = this.newPostings();
  }

  /** Postings whose packs let the vocabulary drop the words no row holds any more. */
  private newPostings(): Bm25Postings {
    return new Bm25Postings((postings) => this.vocabulary.prune(postings));
  }

  /**
   * The written words of an item of another language than English go to the vocabulary with
   * their term (the rows hold terms, so the tokenizer never sees them): each word once per index.
   */
  private learnWrittenWords(language: AnalyzedLanguage, text: string): void {
    for (const word of text.match(INDEX_WORD) ?? []) {
      if (this.writtenSeen.has(word)) continue;
      if (this.writtenSeen.size >= WRITTEN_SEEN_LIMIT) this.writtenSeen.clear();
      this.writtenSeen.add(word);
      if (/\p{N}/u.test(word)) continue;
      const stored = keywordText(language, word);
      if (!stored || stored.includes(' ')) continue;
      const terms = this.tokenizer.termIds(stored);
      if (terms.length === 1) this.vocabulary.learn(word, terms[0]!);
    }
  }

  /** A piece of an item's text seen for the first time: its words go to the vocabulary. */
  private readonly learnPiece = (piece: string, terms: number | readonly number[]): void => {
    // A piece with a digit is a number, an id or a SKU: none of its parts is a correction.
    if (/\p{N}/u.test(piece)) return;
    const words = piece.match(INDEX_WORD);
    if (!words) return;
    if (words.length === 1 && typeof terms === 'number') return this.vocabulary.learn(words[0]!, terms);
    for (const word of words) {
      const wordTerms = this.tokenizer.termIds(word);
      if (wordTerms.length === 1) this.vocabulary.learn(word, wordTerms[0]!);
    }
  };

  protected remove(itemId: number): void {
    this.postings.remove(itemId);
  }

  protected put(item: ItemText): void {
    const scope = scopeColumn(item.knowledgeBaseId, item.sourceType);
    const language = this.language;
    // The columns as the keyword table holds them (keyword-rows.ts): English as written, another
    // language as its terms, whose pieces are stems, not words to correct a typo to.
    let weighed;
    if (isAnalyzed(language)) {
      weighed = this.tokenizer.weigh([keywordText(language, item.title), keywordText(language, item.text), scope], ITEM_COLUMN_WEIGHTS);
      this.learnWrittenWords(language, item.title);
      this.learnWrittenWords(language, item.text);
    } else weighed = this.tokenizer.weigh([item.title, item.text, scope], ITEM_COLUMN_WEIGHTS, this.learnPiece);
    for (const term of weighed.termIds) this.vocabulary.show(term);
    this.postings.put({
      id: item.id,
      group: code(this.knowledgeBases, item.knowledgeBaseId),
      kind: code(this.sourceTypes, item.sourceType),
      ...weighed,
    });
  }
}

function code(codes: Map<string, number>, name: string): number {
  let value = codes.get(name);
  if (value === undefined) codes.set(name, (value = codes.size));
  return value;
}
