import { DEFAULT_KNOWLEDGE_BASE_SETTINGS, type KnowledgeBaseSettings } from '../../common/contract/knowledge.ts';
import type { QueryEmbedder } from '../embedders/query-embedder.ts';
import type { EmbeddingModel } from '../indexes/embedding-model.ts';
import type { Correction, KeywordIndex, QueryWord, TypoReading } from '../indexes/keyword-index.ts';
import type { ChunkRow, ItemSummaryRow, SearchRepo } from '../storage/search-repo.ts';
import { type FusionMethod, keywordCandidatesFirst, minMaxFusion, type Ranked, reciprocalRankFusion } from './fusion.ts';
import { ftsQuery, replaceWords, searchWords, typoBudgets } from './query-terms.ts';
import type { SearchSettings } from './search-settings.ts';

export type SearchMode = 'keyword' | 'semantic' | 'hybrid';

export type SearchOptions = {
  mode: SearchMode;
  topK: number;
  sourceTypes: string[] | null;
  passages: number;
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
};

/**
 * 0.8 × BM25 + 0.2 × cosine, each min-max scaled, keyword candidates first: in the sweep of
 * docs/retrieval.md the best SciFact nDCG@10, above keyword alone at the top of the list on all
 * three eval sets, and (keyword-first) never below keyword on any figure, deep recall included;
 * heavier dense weights and rank fusion (RRF) fall below keyword, as USE-lite is weak on SciFact.
 */
export const DEFAULT_HYBRID: HybridSettings = { method: 'minmax', denseWeight: 0.2, keywordFirst: true };

export type Passage = { chunkId: number; position: number; text: string; score: number; page?: number; section?: string };
export type SearchHit = { item: ItemSummaryRow; score: number; passages: Passage[] };
export type SearchOutcome = {
  hits: SearchHit[];
  /** The mode actually used: semantic parts fall back to keyword while no model is active. */
  mode: SearchMode;
  /** Query words keyword search also read as other words of the knowledge base (typo tolerance). */
  corrections: Correction[];
  /** The query with its words found in no item replaced by their first correction; null when none was. */
  correctedQuery: string | null;
};

/**
 * How misspelt words are read (docs/retrieval.md, "Typo tolerance", has the measurements): a
 * word in fewer than `rareBelow` items of the knowledge base is also searched as its more frequent
 * neighbours, at most `alternatives` of them, each with `weight` times its BM25 share.
 */
export const TYPO_READING: TypoReading = { rareBelow: 2, weight: 0.8, alternatives: 3 };

/** Keyword searches of at most this many words (stopwords aside) list items holding all of them first. */
const ALL_WORDS_FIRST_UP_TO = 4;
/** Candidates each retriever contributes before fusion. */
const CANDIDATES = 100;
/** Nearest chunks fetched per item wanted (an item's chunks often neighbour each other). */
const CHUNKS_PER_ITEM = 3;

export class SearchService {
  constructor(
    private readonly repo: SearchRepo,
    private readonly keywords: KeywordIndex,
    private readonly embedding: EmbeddingModel,
    private readonly queries: QueryEmbedder,
    private readonly hybrid: HybridSettings = DEFAULT_HYBRID,
    /** Each knowledge base's settings; without them, typo tolerance is on everywhere. */
    private readonly settings: SearchSettings | null = null,
    private readonly typoReading: TypoReading = TYPO_READING,
  ) {}

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
    if (words.length === 0 || !this.typoTolerance(knowledgeBaseId)) return null;
    const read = this.keywords.tolerantSearch(knowledgeBaseId, this.queryWords(query, words), 0, null, false, this.typoReading);
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
    const words = searchWords(query);
    const match = ftsQuery(words);
    const pool = Math.max(CANDIDATES, options.topK);
    // A few words in keyword mode are a search someone typed ("gluten free"): items holding every
    // word come first. Questions and hybrid keep plain BM25, which ranks them better (docs/retrieval.md).
    const allWordsFirst = mode === 'keyword' && words.length <= ALL_WORDS_FIRST_UP_TO;
    let corrections: Correction[] = [];
    let keyword: Ranked = [];
    if (mode !== 'semantic' && match) {
      const read = this.typoTolerance(knowledgeBaseId)
        ? this.keywords.tolerantSearch(knowledgeBaseId, this.queryWords(query, words), pool, options.sourceTypes, allWordsFirst, this.typoReading)
        : null;
      if (read) ({ hits: keyword, corrections } = read);
      else {
        keyword =
          this.keywords.search(knowledgeBaseId, words, pool, options.sourceTypes, allWordsFirst) ??
          this.ftsKeywordItems(knowledgeBaseId, words, pool, options.sourceTypes, allWordsFirst);
      }
    }
    const { ranked: semantic, chunkSimilarity } =
      mode === 'keyword' || !queryVector
        ? { ranked: [], chunkSimilarity: new Map<number, number>() }
        : mode === 'hybrid' && this.hybrid.keywordFirst
          ? this.candidateSimilarity(knowledgeBaseId, queryVector, keyword, options)
          : this.semanticItems(knowledgeBaseId, queryVector, pool, options.sourceTypes);
    const ranked =
      mode === 'keyword' ? keyword : mode === 'semantic' ? semantic : this.fuse(keyword, semantic);
    const top = ranked.slice(0, options.topK);
    const items = this.repo.items(top.map((r) => r.id));
    // Passages are chosen by the corrections too: a misspelt word matches no chunk.
    const passageMatch = corrections.length ? ftsQuery([...new Set([...words, ...corrections.flatMap((c) => c.replacements)])]) : match;
    const passages = this.bestPassages(top.map((r) => r.id), passageMatch, chunkSimilarity, options.passages);
    return {
      mode,
      hits: top.map((r) => ({ item: items.get(r.id)!, score: r.score, passages: passages.get(r.id) ?? [] })),
      corrections,
      correctedQuery: corrected(query, corrections),
    };
  }

  /** A knowledge base's search settings (typo tolerance), defaults until changed. */
  knowledgeBaseSettings(knowledgeBaseId: string): KnowledgeBaseSettings {
    return this.settings?.of(knowledgeBaseId) ?? DEFAULT_KNOWLEDGE_BASE_SETTINGS;
  }

  updateKnowledgeBaseSettings(knowledgeBaseId: string, changes: Partial<KnowledgeBaseSettings>): KnowledgeBaseSettings {
    if (!this.settings) throw new Error('this search service was made without a settings store');
    return this.settings.update(knowledgeBaseId, changes);
  }

  private typoTolerance(knowledgeBaseId: string): boolean {
    return this.knowledgeBaseSettings(knowledgeBaseId).typoTolerance;
  }

  private queryWords(query: string, words: string[]): QueryWord[] {
    const budgets = typoBudgets(query, words);
    return words.map((word, i) => ({ word, typos: budgets[i]! }));
  }

  /**
   * The chunks beside the given ones in their items (position − 1 and + 1), by the given chunk's
   * id: what completes a sentence that a chunk's edge cut.
   */
  neighbourChunks(passages: { itemId: number; chunkId: number; position: number }[]): Map<number, { before?: string; after?: string }> {
    const result = new Map<number, { before?: string; after?: string }>();
    if (passages.length === 0) return result;
    const byPlace = new Map<string, string>();
    for (const chunk of this.repo.chunksOfItems([...new Set(passages.map((p) => p.itemId))])) byPlace.set(`${chunk.item_id}:${chunk.position}`, chunk.text);
    for (const p of passages) {
      result.set(p.chunkId, { before: byPlace.get(`${p.itemId}:${p.position - 1}`), after: byPlace.get(`${p.itemId}:${p.position + 1}`) });
    }
    return result;
  }

  /** FTS5's answer while the in-memory index loads: the same ranking, every word first when asked. */
  private ftsKeywordItems(knowledgeBaseId: string, words: string[], pool: number, sourceTypes: string[] | null, allWordsFirst: boolean): Ranked {
    const anyWord = this.repo.keywordItems(knowledgeBaseId, ftsQuery(words)!, pool, sourceTypes);
    if (!allWordsFirst || words.length < 2) return anyWord;
    const everyWord = this.repo.keywordItems(knowledgeBaseId, ftsQuery(words, 'AND')!, pool, sourceTypes);
    const first = new Set(everyWord.map((r) => r.id));
    return [...everyWord, ...anyWord.filter((r) => !first.has(r.id))].slice(0, pool);
  }

  private fuse(keyword: Ranked, semantic: Ranked): Ranked {
    const weights = [1 - this.hybrid.denseWeight, this.hybrid.denseWeight];
    const fused =
      this.hybrid.method === 'rrf'
        ? reciprocalRankFusion([keyword, semantic], weights)
        : minMaxFusion([keyword, semantic], weights);
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
   * hybrid mode, the nearest neighbours in semantic mode), averaged.
   */
  private bestPassages(
    itemIds: number[],
    match: string | null,
    chunkSimilarity: Map<number, number>,
    perItem: number,
  ): Map<number, Passage[]> {
    if (itemIds.length === 0 || perItem === 0) return new Map();
    const chunks = this.repo.chunksOfItems(itemIds);
    const keyword = match ? this.repo.keywordChunks(match, itemIds) : new Map<number, number>();
    const maxKeyword = Math.max(0, ...keyword.values());
    const semantic = chunkSimilarity.size > 0;
    const byItem = new Map<number, Passage[]>();
    for (const chunk of chunks) {
      const kw = maxKeyword > 0 ? (keyword.get(chunk.id) ?? 0) / maxKeyword : 0;
      const score = semantic ? (kw + (chunkSimilarity.get(chunk.id) ?? 0)) / 2 : kw;
      const list = byItem.get(chunk.item_id) ?? [];
      list.push(toPassage(chunk, score));
      byItem.set(chunk.item_id, list);
    }
    for (const [id, list] of byItem) {
      byItem.set(id, list.sort((a, b) => b.score - a.score || a.position - b.position).slice(0, perItem));
    }
    return byItem;
  }
}

function toPassage(chunk: ChunkRow, score: number): Passage {
  return {
    chunkId: chunk.id,
    position: chunk.position,
    text: chunk.text,
    score,
    ...(chunk.page !== null ? { page: chunk.page } : {}),
    ...(chunk.section !== null ? { section: chunk.section } : {}),
  };
}

/** The query with each word found in no item replaced by its first correction, or null when none is. */
function corrected(query: string, corrections: Correction[]): string | null {
  const replaced = new Map(corrections.filter((c) => c.absent).map((c) => [c.word, c.replacements[0]!]));
  return replaced.size ? replaceWords(query, replaced) : null;
}
