import { ALSO_ASKED_LIMIT, type CuratedAnswerInput, type CuratedAnswerPatch } from '../../../common/contract/curated-answers.ts';
import type { CuratedAnswerRecord, CuratedAnswerStore } from '../../domain/curated-answers.ts';
import type { SearchService } from '../search.ts';
import { type CuratedEntry, type CuratedMatch, CuratedMatcher } from './match.ts';

/** Phrasing and answer vectors kept in memory; past this the cache starts again (2 KB each). */
const VECTORS_KEPT = 20_000;

export type CuratedAnswerHit = { record: CuratedAnswerRecord; match: CuratedMatch };
/** A curated question offered to a visitor whose question matched none ("Did you mean …?"). */
export type CuratedSuggestion = { id: number; question: string; score: number };

/**
 * The owner's curated answers: stored per knowledge base, and matched to visitors' questions
 * (match.ts) before any retrieval. Each knowledge base's matcher is built on its first question
 * after a change, with the phrasings' vectors from the same embedder as the query's.
 */
export class CuratedAnswers {
  private readonly matchers = new Map<string, { version: string; built: Promise<{ matcher: CuratedMatcher; records: Map<number, CuratedAnswerRecord> }> }>();
  private readonly vectors = new Map<string, Float32Array>();
  /** The last question's vector as matched, so suggesting after it embeds nothing again. */
  private lastQuestion: { text: string; vector: Promise<Float32Array | null> } | null = null;

  constructor(
    private readonly store: CuratedAnswerStore,
    private readonly search: SearchService,
    private readonly clock: () => number = Date.now,
  ) {}

  list(knowledgeBaseId: string): CuratedAnswerRecord[] {
    return this.store.list(knowledgeBaseId);
  }

  get(knowledgeBaseId: string, id: number): CuratedAnswerRecord | null {
    return this.store.get(knowledgeBaseId, id);
  }

  create(knowledgeBaseId: string, input: CuratedAnswerInput): CuratedAnswerRecord {
    this.matchers.delete(knowledgeBaseId);
    return this.store.insert(knowledgeBaseId, { ...input, alsoAsked: distinct(input.alsoAsked) }, this.clock());
  }

  /** PUT replaces every field (alsoAsked left out is emptied); PATCH keeps those left out. */
  update(knowledgeBaseId: string, id: number, changes: CuratedAnswerPatch): CuratedAnswerRecord | null {
    const current = this.store.get(knowledgeBaseId, id);
    if (!current) return null;
    const fields = { question: changes.question ?? current.question, answer: changes.answer ?? current.answer, alsoAsked: distinct(changes.alsoAsked ?? current.alsoAsked) };
    this.matchers.delete(knowledgeBaseId);
    return this.store.update(knowledgeBaseId, id, fields, this.clock());
  }

  /**
   * Learning from use: a visitor's wording the owner confirmed joins the answer's `alsoAsked`, so the
   * next visitor who words it alike is matched (bench: 54 % right with none, 69 % with two each).
   * A wording the answer already holds (letter case and spaces aside) changes nothing; 'full' when
   * the answer holds ALSO_ASKED_LIMIT already (the owner removes one first).
   */
  addAlsoAsked(knowledgeBaseId: string, id: number, question: string): CuratedAnswerRecord | 'full' | null {
    const current = this.store.get(knowledgeBaseId, id);
    if (!current) return null;
    const known = new Set([current.question, ...current.alsoAsked].map(sameWording));
    if (known.has(sameWording(question))) return current;
    if (current.alsoAsked.length >= ALSO_ASKED_LIMIT) return 'full';
    return this.update(knowledgeBaseId, id, { alsoAsked: [...current.alsoAsked, question] });
  }

  delete(knowledgeBaseId: string, id: number): boolean {
    this.matchers.delete(knowledgeBaseId);
    return this.store.delete(knowledgeBaseId, id);
  }

  /**
   * The curated answer a visitor's question asks for, or null (then the assistant retrieves).
   * `queryVector` gives the question's vector (the assistant hands the one retrieval reads); it is
   * asked for only when the knowledge base has curated answers. Without it the vector is computed here.
   */
  async curatedAnswerFor(
    knowledgeBaseId: string,
    question: string,
    queryVector: () => Promise<Float32Array | null> = () => this.search.queryVector(question, 'hybrid'),
  ): Promise<CuratedAnswerHit | null> {
    const { matcher, records } = await this.matcherOf(knowledgeBaseId);
    if (matcher.size === 0) return null;
    const match = matcher.match(question, await this.remembered(question, queryVector));
    const record = match ? records.get(match.id) : undefined;
    return match && record ? { record, match } : null;
  }

  /**
   * "Did you mean …?": the curated questions of this knowledge base closest to a question no
   * curated answer matched, best first; none when no curated answer is close enough
   * (match.ts, SUGGESTION_FLOOR).
   */
  async suggestionsFor(knowledgeBaseId: string, question: string): Promise<CuratedSuggestion[]> {
    const { matcher, records } = await this.matcherOf(knowledgeBaseId);
    if (matcher.size === 0) return [];
    const vector = await this.remembered(question, () => this.search.queryVector(question, 'hybrid'));
    return matcher.suggest(question, vector).flatMap(({ id, score }) => {
      const record = records.get(id);
      return record ? [{ id, question: record.question, score }] : [];
    });
  }

  /**
   * The question's vector: the last one computed when it is the same question, else computed. A
   * missing vector (keyword mode, no model yet) is not remembered: the next asker may have one.
   */
  private remembered(question: string, queryVector: () => Promise<Float32Array | null>): Promise<Float32Array | null> {
    if (this.lastQuestion?.text === question) return this.lastQuestion.vector;
    const vector = queryVector();
    const entry = (this.lastQuestion = { text: question, vector });
    const forget = () => this.lastQuestion === entry && (this.lastQuestion = null);
    vector.then((v) => v === null && forget(), forget);
    return vector;
  }

  /** The knowledge base's matcher, built again when its answers changed (here, or by the CLI beside this server). */
  private matcherOf(knowledgeBaseId: string) {
    const version = this.store.version(knowledgeBaseId);
    const known = this.matchers.get(knowledgeBaseId);
    if (known?.version === version) return known.built;
    const entry = { version, built: this.build(knowledgeBaseId) };
    this.matchers.set(knowledgeBaseId, entry);
    // A failed build (the embedder failed) is tried again on the next question.
    entry.built.catch(() => this.matchers.get(knowledgeBaseId) === entry && this.matchers.delete(knowledgeBaseId));
    return entry.built;
  }

  private async build(knowledgeBaseId: string) {
    const records = this.store.list(knowledgeBaseId);
    const entries: CuratedEntry[] = [];
    for (const record of records) {
      const phrasings = await Promise.all([record.question, ...record.alsoAsked].map(async (text) => ({ text, vector: await this.vectorOf(text) })));
      // The answer is matched too: a rewording often names what the answer says (match.ts).
      entries.push({ id: record.id, phrasings, answer: { text: record.answer, vector: await this.vectorOf(record.answer) } });
    }
    const { language } = this.search.keywordIndex(knowledgeBaseId);
    return { matcher: new CuratedMatcher(entries, language), records: new Map(records.map((r) => [r.id, r])) };
  }

  private async vectorOf(text: string): Promise<Float32Array | null> {
    const known = this.vectors.get(text);
    if (known) return known;
    const vector = await this.search.queryVector(text, 'hybrid');
    if (vector) {
      if (this.vectors.size >= VECTORS_KEPT) this.vectors.clear();
      this.vectors.set(text, vector);
    }
    return vector;
  }
}

/** Two wordings are the same one when they differ only in letter case and spaces. */
export function sameWording(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

function distinct(phrasings: string[]): string[] {
  return [...new Set(phrasings)];
}
