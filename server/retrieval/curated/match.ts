import { stemmer as english } from '@orama/stemmers/english';
import type { KeywordLanguage } from '../../../common/contract/knowledge.ts';
import { isAnalyzed, keywordTerms } from '../../language/keyword-language.ts';
import { editDistance } from '../../indexes/edit-distance.ts';
import { searchWords } from '../../language/query-words.ts';
import { TrigramIndex } from './grams.ts';

/**
 * Which curated answer (the owner's own answer) a visitor's question asks for, if any. Each
 * curated answer is asked by its question and its `alsoAsked` phrasings, and answered by its
 * answer; the visitor's question is compared with it in four ways, mixed by weight:
 * - phrasing cosine: the embedder's cosine with its closest phrasing;
 * - answer cosine: the embedder's cosine with the answer (a rewording often names what the answer
 *   says rather than what the question said);
 * - words: BM25 over the curated answers as a small corpus, each one document of its phrasings and
 *   its answer, normalised to the question's own best possible score (1 = every word found);
 * - letter trigrams: the trigram cosine with its closest phrasing (grams.ts), which reads
 *   misspellings, other forms of a word and compounds without knowing the language.
 * The best answer wins only when it clears a threshold and leads the second-best answer by a
 * margin: a question between two curated answers, or near none, is left to the assistant.
 * Pure: no storage, no model.
 */

/** One phrasing (or the answer) of a curated answer, with its vector from the embedder (null without a model). */
export type CuratedPhrasing = { text: string; vector: Float32Array | null };
export type CuratedEntry = { id: number; phrasings: CuratedPhrasing[]; answer?: CuratedPhrasing };
/** Weights of the four signals (they add up to 1), the score the best answer needs, and its lead. */
export type MatchTuning = { phrasingCosine: number; answerCosine: number; words: number; grams: number; threshold: number; margin: number };
export type CuratedMatch = { id: number; score: number; margin: number };
/**
 * The question's signals: `grams` and `cosine` per phrasing, `words` and `answerCosine` per
 * curated answer; the cosines are null without a question vector.
 */
export type Signals = { words: Float64Array; grams: Float64Array; cosine: Float64Array | null; answerCosine: Float64Array | null };

/**
 * Chosen by `npm run bench:curated` on the calibration half of StackFAQ's rephrasings (the
 * report half is never seen by the choice): docs/benchmarks.md, "Curated answers".
 */
export const DEFAULT_MATCH_TUNING: MatchTuning = { phrasingCosine: 0.1, answerCosine: 0.2, words: 0.2, grams: 0.5, threshold: 0.37, margin: 0.1 };
/** Without vectors, words and trigrams alone decide, chosen the same way. */
export const KEYWORD_ONLY_TUNING: MatchTuning = { phrasingCosine: 0, answerCosine: 0, words: 0.4, grams: 0.6, threshold: 0.34, margin: 0.15 };

/**
 * "Did you mean …?": a question no curated answer matched is offered the SUGGESTED best-scoring
 * curated questions when the best one scores at least this. Chosen by `npm run bench:curated` on
 * the calibration half (the lowest floor offering them to at most 10 % of its questions that ask
 * for none) with DEFAULT_MATCH_TUNING; on the report half 88.7 % reach the right answer by a match
 * or one click (docs/benchmarks.md, "Curated answers"). Without vectors the same floor is read on
 * KEYWORD_ONLY_TUNING's scores (not measured apart).
 */
export const SUGGESTION_FLOOR = 0.33;
/** How many curated questions a "Did you mean …?" offer lists at most (the bench's OFFERED). */
export const SUGGESTED = 3;

/**
 * The offer made of the best-scoring curated answers: each one that scores at least the floor, so
 * a close first candidate does not bring two unrelated ones with it ("Can I pay by card?" offered
 * for "where do I leave my car"). Empty when even the best is under the floor.
 */
export function offerOf<T extends { score: number }>(best: readonly T[], floor = SUGGESTION_FLOOR): T[] {
  return best.filter((candidate) => candidate.score >= floor);
}

const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** Words of this many letters or more may be matched to a phrasing's word one edit away. */
const TYPO_FROM = 5;

/** The terms of a text as the knowledge base's keyword search reads it: stop words out, words stemmed. */
export function curatedTerms(text: string, language: KeywordLanguage): string[] {
  if (isAnalyzed(language)) return keywordTerms(language, text);
  return searchWords(text).map((word) => english(word));
}

/** A curated answer's words: its phrasings and its answer, as one BM25 document. */
type WordDocument = { terms: Map<string, number>; length: number };
type Phrasing = { entry: number; hasVector: boolean };

export class CuratedMatcher {
  private readonly words: WordDocument[];
  private readonly phrasings: Phrasing[] = [];
  /** The phrasings' and the answers' vectors, row after row (a row of a missing vector stays 0). */
  private readonly phrasingVectors: Float32Array;
  private readonly dimension: number;
  private readonly answerVectors: Float32Array;
  private readonly answerHasVector: boolean[];
  private readonly trigrams: TrigramIndex;
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;
  /** Words of the phrasings a misspelt question word may be read as (the answers' words are not guessed at). */
  private readonly phrasingVocabulary: string[];

  constructor(
    private readonly entries: readonly CuratedEntry[],
    private readonly language: KeywordLanguage,
  ) {
    const phrasingTerms = new Set<string>();
    const phrasingTexts: string[] = [];
    this.words = entries.map((entry, index) => {
      const terms = new Map<string, number>();
      let length = 0;
      for (const phrasing of entry.phrasings) {
        this.phrasings.push({ entry: index, hasVector: phrasing.vector !== null });
        phrasingTexts.push(phrasing.text);
        for (const term of curatedTerms(phrasing.text, language)) {
          phrasingTerms.add(term);
          terms.set(term, (terms.get(term) ?? 0) + 1);
          length++;
        }
      }
      for (const term of entry.answer ? curatedTerms(entry.answer.text, language) : []) {
        terms.set(term, (terms.get(term) ?? 0) + 1);
        length++;
      }
      for (const term of terms.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      return { terms, length };
    });
    const dimension = entries.flatMap((e) => [...e.phrasings, ...(e.answer ? [e.answer] : [])]).find((p) => p.vector)?.vector?.length ?? 0;
    this.dimension = dimension;
    this.phrasingVectors = rows(entries.flatMap((e) => e.phrasings.map((p) => p.vector)), dimension);
    this.answerVectors = rows(entries.map((e) => e.answer?.vector ?? null), dimension);
    this.answerHasVector = entries.map((e) => Boolean(e.answer?.vector));
    this.trigrams = new TrigramIndex(phrasingTexts);
    this.averageLength = this.words.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.words.length);
    this.phrasingVocabulary = [...phrasingTerms];
  }

  get size(): number {
    return this.entries.length;
  }

  /** The question's signals with every phrasing and answer: what `decide` mixes (the bench computes them once and tries every tuning). */
  signals(question: string, vector: Float32Array | null): Signals {
    const grams = this.trigrams.similarities(question);
    let cosine: Float64Array | null = null;
    let answerCosine: Float64Array | null = null;
    if (vector) {
      cosine = dots(vector, this.phrasingVectors, this.phrasings.length);
      // A phrasing without a vector (stored before a model was loaded) is read by its letters alone,
      // an answer without one by its closest phrasing.
      this.phrasings.forEach((phrasing, p) => !phrasing.hasVector && (cosine![p] = grams[p]!));
      const closest = this.bestPerEntry(cosine);
      answerCosine = dots(vector, this.answerVectors, this.entries.length);
      this.answerHasVector.forEach((has, e) => !has && (answerCosine![e] = closest[e]!));
    }
    return { words: this.wordOverlap(question), grams, cosine, answerCosine };
  }

  /** The curated answer the signals point to, or null when none clearly does. */
  decide(signals: Signals, tuning: MatchTuning): CuratedMatch | null {
    const [first, second] = this.ranked(signals, tuning, 2);
    if (!first) return null;
    const margin = first.score - (second?.score ?? 0);
    if (first.score < tuning.threshold || margin < tuning.margin) return null;
    return { id: first.id, score: first.score, margin };
  }

  /**
   * The `count` best-scoring curated answers, best first. When `decide` matched none, these are what
   * a "Did you mean …?" offer would list (the bench measures how often the right one is among them).
   */
  ranked(signals: Signals, tuning: MatchTuning, count: number): Array<{ id: number; score: number }> {
    const scores = this.scores(signals, tuning);
    const best: number[] = [];
    scores.forEach((score, index) => {
      if (best.length === count && score <= scores[best[count - 1]!]!) return;
      let at = best.length;
      while (at > 0 && score > scores[best[at - 1]!]!) at--;
      best.splice(at, 0, index);
      if (best.length > count) best.pop();
    });
    return best.map((index) => ({ id: this.entries[index]!.id, score: scores[index]! }));
  }

  /** Each curated answer's mixed score: its closest phrasing's cosine and trigrams, its answer's cosine, its words. */
  scores({ words, grams, cosine, answerCosine }: Signals, tuning: MatchTuning): Float64Array {
    const phrasingScores = new Float64Array(this.phrasings.length);
    this.phrasings.forEach((_, p) => (phrasingScores[p] = tuning.grams * grams[p]! + (cosine ? tuning.phrasingCosine * cosine[p]! : 0)));
    const scores = this.bestPerEntry(phrasingScores);
    scores.forEach((score, e) => (scores[e] = score + tuning.words * words[e]! + (answerCosine ? tuning.answerCosine * answerCosine[e]! : 0)));
    return scores;
  }

  /** The curated answer the question asks for, or null when none clearly does. */
  match(question: string, vector: Float32Array | null, tuning?: MatchTuning): CuratedMatch | null {
    const { signals, tuning: t } = this.read(question, vector, tuning);
    return this.decide(signals, t);
  }

  /**
   * What a "Did you mean …?" offer lists: of the SUGGESTED best-scoring curated answers, those that
   * score at least SUGGESTION_FLOOR (offerOf). Meant for a question `match` left to the assistant.
   */
  suggest(question: string, vector: Float32Array | null): Array<{ id: number; score: number }> {
    if (this.entries.length === 0) return [];
    const { signals, tuning } = this.read(question, vector);
    return offerOf(this.ranked(signals, tuning, SUGGESTED));
  }

  /** The question's signals and the tuning for them: the vectors' only when both sides have them. */
  private read(question: string, vector: Float32Array | null, tuning?: MatchTuning): { signals: Signals; tuning: MatchTuning } {
    const usesVectors = vector !== null && vector.length === this.dimension && this.phrasings.some((p) => p.hasVector);
    return { signals: this.signals(question, usesVectors ? vector : null), tuning: tuning ?? (usesVectors ? DEFAULT_MATCH_TUNING : KEYWORD_ONLY_TUNING) };
  }

  private bestPerEntry(perPhrasing: Float64Array): Float64Array {
    const best = new Float64Array(this.entries.length).fill(-Infinity);
    this.phrasings.forEach(({ entry }, p) => {
      if (perPhrasing[p]! > best[entry]!) best[entry] = perPhrasing[p]!;
    });
    return best;
  }

  /** BM25 of the question against each curated answer's words, over what it would score against a document holding each of its words once. */
  private wordOverlap(question: string): Float64Array {
    const terms = this.questionTerms(question);
    const idf = new Map(terms.map((t) => [t, this.idf(t)]));
    const ceiling = terms.reduce((sum, t) => sum + idf.get(t)!, 0);
    const overlap = new Float64Array(this.words.length);
    if (ceiling === 0) return overlap;
    this.words.forEach((document, d) => {
      const norm = BM25_K1 * (1 - BM25_B + (BM25_B * document.length) / (this.averageLength || 1));
      let score = 0;
      for (const term of terms) {
        const tf = document.terms.get(term);
        if (tf) score += (idf.get(term)! * tf * (BM25_K1 + 1)) / (tf + norm);
      }
      overlap[d] = Math.min(1, score / ceiling);
    });
    return overlap;
  }

  /** The question's terms, a misspelt one (in no curated answer) read as the phrasings' word one edit away. */
  private questionTerms(question: string): string[] {
    const terms = curatedTerms(question, this.language).map((term) => {
      if (this.documentFrequency.has(term) || [...term].length < TYPO_FROM || /\p{N}/u.test(term)) return term;
      const points = [...term].map((c) => c.codePointAt(0)!);
      let found: string | null = null;
      for (const known of this.phrasingVocabulary) {
        if (editDistance(points, [...known].map((c) => c.codePointAt(0)!), 1) <= 1) {
          if (found !== null) return term; // two candidates: no guess
          found = known;
        }
      }
      return found ?? term;
    });
    return [...new Set(terms)];
  }

  private idf(term: string): number {
    const df = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (this.words.length - df + 0.5) / (df + 0.5));
  }
}

/** Vectors as rows of one array (a missing one as zeros): a question's cosines are read in one pass. */
function rows(vectors: Array<Float32Array | null>, dimension: number): Float32Array {
  const out = new Float32Array(vectors.length * dimension);
  vectors.forEach((v, i) => v && v.length === dimension && out.set(v, i * dimension));
  return out;
}

/** The dot product of the vector with each of `count` rows. */
function dots(vector: Float32Array, matrix: Float32Array, count: number): Float64Array {
  const dimension = vector.length;
  const out = new Float64Array(count);
  if (matrix.length !== count * dimension) return out;
  for (let r = 0, offset = 0; r < count; r++, offset += dimension) {
    let sum = 0;
    for (let i = 0; i < dimension; i++) sum += vector[i]! * matrix[offset + i]!;
    out[r] = sum;
  }
  return out;
}
