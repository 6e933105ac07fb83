import {
  DEFAULT_KNOWLEDGE_BASE_SETTINGS,
  type KeywordIndexState,
  type KeywordLanguage,
  type KnowledgeBaseSettings,
} from '../../common/contract/knowledge.ts';
import type { SynonymSet } from '../../common/contract/synonyms.ts';
import type { ChunkRecord, ItemSummary } from '../domain/item-record.ts';
import { type AnalyzedLanguage, isAnalyzed, keywordTerms } from '../language/keyword-language.ts';
import type { QueryEmbedder } from '../embedders/query-embedder.ts';
import type { EmbeddingModel } from '../indexes/embedding-model.ts';
import type { Correction, KeywordIndex, QueryWord, SynonymReading, TypoReading } from '../indexes/keyword-index.ts';
import type { SearchRepo } from '../storage/search-repo.ts';
import { type FusionMethod, keywordCandidatesFirst, minMaxFusion, type Ranked, reciprocalRankFusion } from './fusion.ts';
import { groupByParagraph, type ParagraphGroup, type ScoredChunk } from './paragraph-passages.ts';
import { ftsQuery, queryWords, replaceWords, searchWords, typoBudgets } from '../language/query-words.ts';
import type { SearchSettings } from './search-settings.ts';
import { querySynonyms, type SynonymStore } from './synonyms.ts';

export type SearchMode = 'keyword' | 'semantic' | 'hybrid';

export type SearchOptions = {
  mode: SearchMode;
  topK: number;
  sourceTypes: string[] | null;
  passages: number;
  /**
   * An item the asker is looking at (the page a visitor is on): ranked first, even when the query
   * alone would not find it; with `only`, the sole item searched ("how long is this?").
   */
  focus?: { itemId: number; only: boolean } | undefined;
};

/** How hybrid mode fuses keyword and semantic rankings; chosen by measurement (docs/retrieval.md). */
export type HybridSettings = {
  method: FusionMethod;
  denseWeight: number;
  /**
   * Items only the semantic side found rank after every keyword candidate: semantic similarity
   * reorders what the keywords found and fills the places they leave empty.
   */
  keywordFirst?: boolean;
  /**
   * The dense weight for knowledge bases in a language other than English, which the English
   * embedding model reads poorly (docs/retrieval.md, "Languages"); denseWeight when absent.
   * Measured on German and French sets (bench/language-eval.ts): 0 to 0.5 rank within a query
   * of 45 of each other, 0.2 among the best, so keyword candidates first (`keywordFirst`) is what
   * makes those knowledge bases lean on keywords, and the weight stays English's.
   */
  otherLanguagesDenseWeight?: number;
};

/**
 * 0.8 × BM25 + 0.2 × cosine, each min-max scaled, keyword candidates first: in the sweep of
 * docs/retrieval.md the best SciFact nDCG@10, above keyword alone at the top of the list on all
 * three eval sets, and (keyword-first) never below keyword on any figure, deep recall included;
 * heavier dense weights and rank fusion (RRF) fall below keyword, as USE-lite is weak on SciFact.
 */
export const DEFAULT_HYBRID: HybridSettings = { method: 'minmax', denseWeight: 0.2, keywordFirst: true, otherLanguagesDenseWeight: 0.2 };

export type Passage = { chunkId: number; position: number; text: string; score: number; page?: number; section?: string };
export type SearchHit = { item: ItemSummary; score: number; passages: Passage[] };
export type SearchOutcome = {
  hits: SearchHit[];
  /** The mode actually used: semantic parts fall back to keyword while no model is active. */
  mode: SearchMode;
  /** Query words keyword search also read as other words of the knowledge base (typo tolerance). */
  corrections: Correction[];
  /** The query with its words found in no item replaced by their first correction; null when none was. */
  correctedQuery: string | null;
  /** Query words the knowledge base's synonym sets added terms for, with those terms. */
  synonyms: Array<{ word: string; synonyms: readonly string[] }>;
};

/**
 * How misspelt words are read (docs/retrieval.md, "Typo tolerance", has the measurements): a
 * word in fewer than `rareBelow` items of the knowledge base is also searched as its more frequent
 * neighbours, at most `alternatives` of them, each with `weight` times its BM25 share.
 */
export const TYPO_READING: TypoReading = { rareBelow: 2, weight: 0.8, alternatives: 3 };

/**
 * A synonym's BM25 share is weighted as a typo correction's (docs/retrieval.md, "Synonyms"): it
 * stands in for the word typed, so an item holding that word ranks first; its IDF is capped by the
 * word's, so a rarer synonym does not outweigh it either.
 */
export const SYNONYM_WEIGHT = 0.8;

/** Items a phrase synonym contributes at most (by FTS5's bm25() of the phrase). */
const PHRASE_ROWS = 1_000;

/** Keyword searches of at most this many words (stopwords aside) list items holding all of them first. */
const ALL_WORDS_FIRST_UP_TO = 4;
/** Candidates each retriever contributes before fusion. */
const CANDIDATES = 100;
/**
 * A passage's score: its chunk BM25 (scaled to the best passage's) and its cosine similarity,
 * weighted. Equal for pushed items. A document's passages, taken whole paragraph by paragraph
 * (paragraph-passages.ts), weigh similarity more: on the file retrieval bench, 0.6 and 0.7 gave
 * PDF, DOCX and Markdown the same recall@5 (0.895), 0.5 gave 0.877 to 0.885, 0.85 and 1 less
 * (docs/retrieval.md, "Files against JSON items").
 */
const PASSAGE_SIMILARITY_WEIGHT = 0.5;
const DOCUMENT_PASSAGE_SIMILARITY_WEIGHT = 0.7;
/** Nearest chunks fetched per item wanted (an item's chunks often neighbour each other). */
const CHUNKS_PER_ITEM = 3;

/** What a `SearchService` works with: the index and the model it searches, then settings that have defaults. */
export type SearchParts = {
  repo: SearchRepo;
  keywords: KeywordIndex;
  embedding: EmbeddingModel;
  queries: QueryEmbedder;
  /** How hybrid search weighs and fuses its two rankings; `DEFAULT_HYBRID` when not given. */
  hybrid?: HybridSettings;
  /** Each knowledge base's settings; without them, typo tolerance is on everywhere. */
  settings?: SearchSettings | null;
  /** How a rare word's typo neighbours are read; `TYPO_READING` when not given. */
  typoReading?: TypoReading;
  /** The in-memory keyword index of a language other than English; without it, FTS5 answers for them. */
  languageIndex?: ((language: KeywordLanguage) => KeywordIndex) | null;
  /** Each knowledge base's synonym sets; without them, none. */
  synonyms?: SynonymStore | null;
  /** The weight of a synonym's matches against the words typed; `SYNONYM_WEIGHT` when not given. */
  synonymWeight?: number;
};

export class SearchService {
  private readonly repo: SearchRepo;
  private readonly keywords: KeywordIndex;
  private readonly embedding: EmbeddingModel;
  private readonly queries: QueryEmbedder;
  private readonly hybrid: HybridSettings;
  private readonly settings: SearchSettings | null;
  private readonly typoReading: TypoReading;
  private readonly languageIndex: ((language: KeywordLanguage) => KeywordIndex) | null;
  private readonly synonyms: SynonymStore | null;
  private readonly synonymWeight: number;

  constructor(parts: SearchParts) {
    this.repo = parts.repo;
    this.keywords = parts.keywords;
    this.embedding = parts.embedding;
    this.queries = parts.queries;
    this.hybrid = parts.hybrid ?? DEFAULT_HYBRID;
    this.settings = parts.settings ?? null;
    this.typoReading = parts.typoReading ?? TYPO_READING;
    this.languageIndex = parts.languageIndex ?? null;
    this.synonyms = parts.synonyms ?? null;
    this.synonymWeight = parts.synonymWeight ?? SYNONYM_WEIGHT;
  }

  async search(knowledgeBaseId: string, query: string, options: SearchOptions): Promise<SearchOutcome> {
    const vectorQuery = options.mode === 'hybrid' ? (this.correctedQuery(knowledgeBaseId, query) ?? query) : query;
    return this.searchWithVector(knowledgeBaseId, query, await this.queryVector(vectorQuery, options.mode), options);
  }

  /**
   * The query as keyword search reads it, its words found in no item replaced by their
   * correction, or null when none is: hybrid search embeds this reading, since the model reads a
   * misspelt word as noise.
   */
  correctedQuery(knowledgeBaseId: string, query: string): string | null {
    const words = searchWords(query);
    if (words.length === 0 || !this.typoTolerance(knowledgeBaseId) || this.keywordLanguage(knowledgeBaseId) !== 'en') return null;
    const read = this.keywords.tolerantSearch(knowledgeBaseId, this.queryWords(knowledgeBaseId, query, words, true), 0, null, false, this.typoReading);
    return read ? corrected(query, read.corrections) : null;
  }

  /**
   * The query's vector for `searchWithVector`, or null in keyword mode or without a model. It
   * resolves once the vectors a search reads are in memory: at once, except while they load after
   * a start-up (the event loop keeps answering other requests meanwhile).
   */
  async queryVector(query: string, mode: SearchMode): Promise<Float32Array | null> {
    if (mode === 'keyword' || this.embedding.vectors() === null) return null;
    const [vector] = await this.queries.embed([query]);
    await this.embedding.index()?.ready();
    return vector!;
  }

  /** The search itself, given the query's vector (or null for keywords only). */
  searchWithVector(
    knowledgeBaseId: string,
    query: string,
    queryVector: Float32Array | null,
    options: SearchOptions,
  ): SearchOutcome {
    const mode: SearchMode = queryVector ? options.mode : 'keyword';
    const language = this.keywordLanguage(knowledgeBaseId);
    // English words are stemmed by FTS5 (and the in-memory index mirroring it); other languages'
    // keyword tables hold terms, which the query is read into the same way (keyword-language.ts).
    const words = isAnalyzed(language) ? [...new Set(keywordTerms(language, query))] : searchWords(query);
    const match = ftsQuery(words);
    const pool = Math.max(CANDIDATES, options.topK);
    // A few words in keyword mode are a search someone typed ("gluten free"): items holding every
    // word come first. Questions and hybrid keep plain BM25, which ranks them better (docs/retrieval.md).
    const allWordsFirst = mode === 'keyword' && words.length <= ALL_WORDS_FIRST_UP_TO;
    let corrections: Correction[] = [];
    let keyword: Ranked = [];
    const typos = this.typoTolerance(knowledgeBaseId);
    let queryWords: QueryWord[] = [];
    if (mode !== 'semantic' && match && isAnalyzed(language)) {
      const index = this.languageIndex?.(language) ?? null;
      // Typo tolerance and synonyms look the words up as typed: one per term, stop words left out.
      const written = writtenWords(language, query);
      if (written.length === words.length) queryWords = this.queryWords(knowledgeBaseId, query, written, typos);
      const synonyms = queryWords.some((w) => w.synonyms?.length);
      const read =
        index && queryWords.length && (typos || synonyms)
          ? index.tolerantSearch(knowledgeBaseId, queryWords, pool, options.sourceTypes, allWordsFirst, this.typoReading, this.synonymReading(knowledgeBaseId, options.sourceTypes, language))
          : null;
      if (read) ({ hits: keyword, corrections } = read);
      else {
        // While the language's postings load, FTS5 answers without synonyms.
        queryWords = [];
        keyword =
          index?.search(knowledgeBaseId, words, pool, options.sourceTypes, allWordsFirst) ??
          this.ftsKeywordItems(knowledgeBaseId, words.map((word) => ({ word, typos: 0 })), pool, options.sourceTypes, allWordsFirst, language);
      }
    } else if (mode !== 'semantic' && match) {
      queryWords = this.queryWords(knowledgeBaseId, query, words, typos);
      const synonyms = queryWords.some((w) => w.synonyms?.length);
      const read =
        typos || synonyms
          ? this.keywords.tolerantSearch(knowledgeBaseId, queryWords, pool, options.sourceTypes, allWordsFirst, this.typoReading, this.synonymReading(knowledgeBaseId, options.sourceTypes, language))
          : null;
      if (read) ({ hits: keyword, corrections } = read);
      else {
        keyword =
          (synonyms ? null : this.keywords.search(knowledgeBaseId, words, pool, options.sourceTypes, allWordsFirst)) ??
          this.ftsKeywordItems(knowledgeBaseId, queryWords, pool, options.sourceTypes, allWordsFirst);
      }
    }
    const { ranked: semantic, chunkSimilarity } =
      mode === 'keyword' || !queryVector
        ? { ranked: [], chunkSimilarity: new Map<number, number>() }
        : mode === 'hybrid' && this.hybrid.keywordFirst
          ? this.candidateSimilarity(knowledgeBaseId, queryVector, keyword, options)
          : this.semanticItems(knowledgeBaseId, queryVector, pool, options.sourceTypes);
    const ranked =
      mode === 'keyword' ? keyword : mode === 'semantic' ? semantic : this.fuse(keyword, semantic, language, this.repo.textPhaseItems(keyword.map((r) => r.id)));
    const top = options.focus ? focused(ranked, options.focus, options.topK) : ranked.slice(0, options.topK);
    if (options.focus && queryVector) this.addFocusSimilarity(options.focus.itemId, queryVector, chunkSimilarity);
    const items = this.repo.items(top.map((r) => r.id));
    // Passages are chosen by the corrections and synonyms too: a misspelt word matches no chunk.
    const added = [...corrections.flatMap((c) => c.replacements), ...queryWords.flatMap((w) => w.synonyms ?? [])];
    const addedTerms = isAnalyzed(language) ? added.flatMap((w) => keywordTerms(language, w)) : added;
    const passageMatch = added.length ? ftsQuery([...new Set([...words, ...addedTerms])]) : match;
    const passages = this.bestPassages(top.map((r) => r.id), passageMatch, chunkSimilarity, options.passages, language);
    return {
      mode,
      hits: top.map((r) => ({ item: items.get(r.id)!, score: r.score, passages: passages.get(r.id) ?? [] })),
      corrections,
      correctedQuery: corrected(query, corrections),
      synonyms: queryWords.flatMap((w) => (w.synonyms?.length ? [{ word: w.word, synonyms: w.synonyms }] : [])),
    };
  }

  /** The focused item's chunks scored by meaning too, when the query alone did not reach them. */
  private addFocusSimilarity(itemId: number, queryVector: Float32Array, chunkSimilarity: Map<number, number>): void {
    const vectors = this.embedding.vectors();
    if (!vectors) return;
    for (const chunk of this.repo.chunksOfItems([itemId])) {
      if (chunkSimilarity.has(chunk.id)) continue;
      const vector = vectors.get(chunk.id);
      if (vector) chunkSimilarity.set(chunk.id, dotProduct(vector, queryVector));
    }
  }

  /** A knowledge base's search settings (typo tolerance, language), defaults until changed. */
  knowledgeBaseSettings(knowledgeBaseId: string): KnowledgeBaseSettings {
    return this.settings?.of(knowledgeBaseId) ?? DEFAULT_KNOWLEDGE_BASE_SETTINGS;
  }

  /** Where the knowledge base's keyword index is: the language it answers in, a re-index under way. */
  keywordIndex(knowledgeBaseId: string): KeywordIndexState {
    return this.settings?.keywordIndex(knowledgeBaseId) ?? { language: 'en', reindexing: null };
  }

  /** The language keyword search reads the knowledge base in now (the one asked for once re-indexed). */
  private keywordLanguage(knowledgeBaseId: string): KeywordLanguage {
    return this.keywordIndex(knowledgeBaseId).language;
  }

  updateKnowledgeBaseSettings(knowledgeBaseId: string, changes: Partial<KnowledgeBaseSettings>): KnowledgeBaseSettings {
    if (!this.settings) throw new Error('this search service was made without a settings store');
    return this.settings.update(knowledgeBaseId, changes);
  }

  private typoTolerance(knowledgeBaseId: string): boolean {
    return this.knowledgeBaseSettings(knowledgeBaseId).typoTolerance;
  }

  /** A knowledge base's synonym sets, in the order stored. */
  synonymSets(knowledgeBaseId: string): SynonymSet[] {
    return this.synonyms?.sets(knowledgeBaseId) ?? [];
  }

  replaceSynonyms(knowledgeBaseId: string, sets: SynonymSet[]): SynonymSet[] {
    if (!this.synonyms) throw new Error('this search service was made without a synonym store');
    return this.synonyms.replace(knowledgeBaseId, sets);
  }

  /**
   * The query's search words with their typo budgets (none when typo tolerance is off) and the
   * synonyms the knowledge base adds for them. A word with synonyms is not corrected: the owner
   * named it, so it is a word of the shop's even when no item holds it ("hoodie").
   */
  private queryWords(knowledgeBaseId: string, query: string, words: string[], typos: boolean): QueryWord[] {
    const budgets = typos ? typoBudgets(query, words) : words.map(() => 0);
    const lookup = this.synonyms?.lookup(knowledgeBaseId) ?? null;
    const added = lookup ? querySynonyms(query, words, lookup) : null;
    return words.map((word, i) => {
      const synonyms = added?.[i] ?? [];
      return synonyms.length ? { word, typos: 0, synonyms } : { word, typos: budgets[i]! };
    });
  }

  /** Synonyms weighted below the words typed; phrases found by FTS5 in the knowledge base (and source types). */
  private synonymReading(knowledgeBaseId: string, sourceTypes: string[] | null, language: KeywordLanguage): SynonymReading {
    // A phrase in another language is found as its terms, in that language's keyword table.
    const asPhrase = (phrase: string) => (isAnalyzed(language) ? keywordTerms(language, phrase).join(' ') : phrase);
    return {
      weight: this.synonymWeight,
      phraseRows: (phrase) => this.repo.keywordItems(knowledgeBaseId, ftsQuery([asPhrase(phrase)])!, PHRASE_ROWS, sourceTypes, language),
    };
  }

  /**
   * The chunks beside the given ones in their items (position − 1 and + 1), by the given chunk's
   * id: what completes a sentence that a chunk's edge cut.
   */
  neighbourChunks(passages: { itemId: number; chunkId: number; position: number }[]): Map<number, { before?: string; after?: string }> {
    const result = new Map<number, { before?: string; after?: string }>();
    if (passages.length === 0) return result;
    const byPlace = new Map<string, ChunkRecord>();
    for (const chunk of this.repo.chunksOfItems([...new Set(passages.map((p) => p.itemId))])) byPlace.set(`${chunk.itemId}:${chunk.position}`, chunk);
    for (const p of passages) {
      // A passage of a paragraph's parts (paragraph-passages.ts) is followed by the chunk after its last part.
      const paragraph = byPlace.get(`${p.itemId}:${p.position}`)?.paragraph ?? null;
      let next = p.position + 1;
      while (paragraph !== null && byPlace.get(`${p.itemId}:${next}`)?.paragraph === paragraph) next++;
      result.set(p.chunkId, { before: byPlace.get(`${p.itemId}:${p.position - 1}`)?.text, after: byPlace.get(`${p.itemId}:${next}`)?.text });
    }
    return result;
  }

  /**
   * FTS5's answer while the in-memory index loads: the same ranking, every word first when asked.
   * Synonyms add their own BM25 times their weight (bm25() sums over a query's phrases, so the sum
   * of two queries' scores is the score of both), without the IDF cap of the in-memory search.
   */
  private ftsKeywordItems(
    knowledgeBaseId: string,
    queryWords: QueryWord[],
    pool: number,
    sourceTypes: string[] | null,
    allWordsFirst: boolean,
    language: KeywordLanguage = 'en',
  ): Ranked {
    const words = queryWords.map((w) => w.word);
    const synonyms = [...new Set(queryWords.flatMap((w) => w.synonyms ?? []))];
    let anyWord = this.repo.keywordItems(knowledgeBaseId, ftsQuery(words)!, pool, sourceTypes, language);
    const scores = new Map(anyWord.map((r) => [r.id, r.score]));
    if (synonyms.length) {
      for (const r of this.repo.keywordItems(knowledgeBaseId, ftsQuery(synonyms)!, pool, sourceTypes, language)) {
        scores.set(r.id, (scores.get(r.id) ?? 0) + this.synonymWeight * r.score);
      }
      anyWord = byScore([...scores].map(([id, score]) => ({ id, score }))).slice(0, pool);
    }
    if (!allWordsFirst || words.length < 2) return anyWord;
    // Every word, each as typed or as one of its synonyms (with none, the score is the OR query's).
    const everyWordQuery = synonyms.length
      ? queryWords.map((w) => `(${ftsQuery([w.word, ...(w.synonyms ?? [])])})`).join(' AND ')
      : ftsQuery(words, 'AND')!;
    let everyWord = this.repo.keywordItems(knowledgeBaseId, everyWordQuery, pool, sourceTypes, language);
    if (synonyms.length) everyWord = byScore(everyWord.map((r) => ({ id: r.id, score: scores.get(r.id) ?? r.score })));
    const first = new Set(everyWord.map((r) => r.id));
    return [...everyWord, ...anyWord.filter((r) => !first.has(r.id))].slice(0, pool);
  }

  /**
   * Keyword and semantic rankings fused. `textOnly`: keyword candidates whose vectors are still to
   * come (their text phase is indexed, docs/pipeline.md "Two phases"): the semantic side cannot
   * score them, so they are fused by their keyword score alone rather than as if dissimilar.
   */
  private fuse(keyword: Ranked, semantic: Ranked, language: KeywordLanguage, textOnly: ReadonlySet<number>): Ranked {
    const denseWeight = language === 'en' ? this.hybrid.denseWeight : (this.hybrid.otherLanguagesDenseWeight ?? this.hybrid.denseWeight);
    const weights = [1 - denseWeight, denseWeight];
    const fused =
      this.hybrid.method === 'rrf'
        ? reciprocalRankFusion([keyword, semantic], weights, undefined, textOnly)
        : minMaxFusion([keyword, semantic], weights, textOnly);
    return this.hybrid.keywordFirst ? keywordCandidatesFirst(fused, keyword) : fused;
  }

  /**
   * Keyword-first hybrid needs no search of the whole vector index: semantic similarity only
   * reorders the keyword candidates, so each candidate is scored by its best chunk directly
   * (a few hundred int8 dot products), and nearest neighbours are searched only when the keyword
   * candidates cannot fill the page. Every chunk of the candidates gets a similarity, which
   * passage selection reuses.
   */
  private candidateSimilarity(
    kb: string,
    queryVector: Float32Array,
    keyword: Ranked,
    options: SearchOptions,
  ): { ranked: Ranked; chunkSimilarity: Map<number, number> } {
    const owners = this.repo.chunkOwners(keyword.map((r) => r.id));
    const chunkSimilarity = this.embedding.index()!.similarities(kb, [...owners.keys()], queryVector);
    const best = new Map<number, number>();
    for (const [chunkId, similarity] of chunkSimilarity) {
      const itemId = owners.get(chunkId)!;
      if (similarity > (best.get(itemId) ?? -Infinity)) best.set(itemId, similarity);
    }
    if (keyword.length < options.topK) {
      const nearest = this.semanticItems(kb, queryVector, options.topK, options.sourceTypes);
      for (const r of nearest.ranked) if (!best.has(r.id)) best.set(r.id, r.score);
      for (const [chunkId, similarity] of nearest.chunkSimilarity) chunkSimilarity.set(chunkId, similarity);
    }
    const ranked = [...best].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score);
    return { ranked, chunkSimilarity };
  }

  /**
   * Items ranked by their best chunk's cosine similarity to the query, plus the similarity of
   * every chunk the nearest-neighbour search returned (reused to pick passages).
   */
  private semanticItems(
    kb: string,
    queryVector: Float32Array,
    pool: number,
    sourceTypes: string[] | null,
  ): { ranked: Ranked; chunkSimilarity: Map<number, number> } {
    const hits = this.embedding.index()!.nearest(kb, queryVector, pool * CHUNKS_PER_ITEM, sourceTypes);
    const best = new Map<number, number>();
    const chunkSimilarity = new Map<number, number>();
    for (const hit of hits) {
      chunkSimilarity.set(hit.chunkId, hit.similarity);
      if (hit.similarity > (best.get(hit.itemId) ?? -Infinity)) best.set(hit.itemId, hit.similarity);
    }
    const ranked = [...best].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score).slice(0, pool);
    return { ranked, chunkSimilarity };
  }

  /**
   * The passages of each item that answer the query best: chunk BM25 (scaled to the best chunk
   * overall) and their cosine similarity where search knows it (every chunk of the candidates in
   * hybrid mode, the nearest neighbours in semantic mode), weighted. The chunks of one
   * paragraph of a document are one passage (paragraph-passages.ts).
   */
  private bestPassages(
    itemIds: number[],
    match: string | null,
    chunkSimilarity: Map<number, number>,
    perItem: number,
    language: KeywordLanguage,
  ): Map<number, Passage[]> {
    if (itemIds.length === 0 || perItem === 0) return new Map();
    const keyword = match ? this.repo.keywordChunks(match, itemIds, language) : new Map<number, number>();
    const chunksOf = new Map<number, ScoredChunk<ChunkRecord>[]>();
    for (const chunk of this.repo.chunksOfItems(itemIds)) {
      const list = chunksOf.get(chunk.itemId) ?? [];
      list.push({ chunk, position: chunk.position, paragraph: chunk.paragraph, text: chunk.text, keyword: keyword.get(chunk.id) ?? 0, similarity: chunkSimilarity.get(chunk.id) ?? 0 });
      chunksOf.set(chunk.itemId, list);
    }
    // The parts of one long paragraph of a document are one passage (paragraph-passages.ts).
    const groupsOf = new Map([...chunksOf].map(([id, list]) => [id, groupByParagraph(list)]));
    const maxKeyword = Math.max(0, ...[...groupsOf.values()].flatMap((groups) => groups.map((g) => g.keyword)));
    const semantic = chunkSimilarity.size > 0;
    const byItem = new Map<number, Passage[]>();
    for (const [id, groups] of groupsOf) {
      const list = groups.map((group) => {
        const kw = maxKeyword > 0 ? group.keyword / maxKeyword : 0;
        const w = group.fromDocument ? DOCUMENT_PASSAGE_SIMILARITY_WEIGHT : PASSAGE_SIMILARITY_WEIGHT;
        return toPassage(group, semantic ? (1 - w) * kw + w * group.similarity : kw);
      });
      byItem.set(id, list.sort((a, b) => b.score - a.score || a.position - b.position).slice(0, perItem));
    }
    return byItem;
  }
}

/**
 * The words of a query in another language than English as typo tolerance looks them up: as
 * typed (lower case), one per term of the language's reading, stop words left out, in the order
 * of `keywordTerms`' distinct terms.
 */
function writtenWords(language: AnalyzedLanguage, query: string): string[] {
  const byTerm = new Map<string, string>();
  for (const word of queryWords(query)) {
    const [term, more] = keywordTerms(language, word);
    if (term !== undefined && more === undefined && !byTerm.has(term)) byTerm.set(term, word);
  }
  return [...new Set(keywordTerms(language, query))].map((term) => byTerm.get(term) ?? term);
}

/** A passage: one chunk, or the parts of one paragraph (cited at the first part's page, scored as its best part's vector). */
function toPassage(group: ParagraphGroup<ChunkRecord>, score: number): Passage {
  const { first, best } = group;
  return {
    chunkId: best.id,
    position: group.position,
    text: group.text,
    score,
    ...(first.page !== null ? { page: first.page } : {}),
    ...(first.section !== null ? { section: first.section } : {}),
  };
}

/** The query with each word found in no item replaced by its first correction, or null when none is. */
function corrected(query: string, corrections: Correction[]): string | null {
  const replaced = new Map(corrections.filter((c) => c.absent).map((c) => [c.word, c.replacements[0]!]));
  return replaced.size ? replaceWords(query, replaced) : null;
}

/** Best first, ties by id (as the in-memory search orders them). */
function byScore(ranked: Ranked): Ranked {
  return ranked.sort((a, b) => b.score - a.score || a.id - b.id);
}

/** The ranking with the focused item first (at the top score when the query did not rank it): it alone with `only`. */
function focused(ranked: Ranked, focus: { itemId: number; only: boolean }, topK: number): Ranked {
  const own = ranked.find((r) => r.id === focus.itemId) ?? { id: focus.itemId, score: ranked[0]?.score ?? 1 };
  const first = { id: own.id, score: Math.max(own.score, ranked[0]?.score ?? 0) || 1 };
  if (focus.only) return [first];
  return [first, ...ranked.filter((r) => r.id !== focus.itemId)].slice(0, topK);
}

function dotProduct(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
