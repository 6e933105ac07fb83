import { stemmer as english } from '@orama/stemmers/english';
import type { KeywordLanguage } from '../../../common/contract/knowledge.ts';
import { isAnalyzed, keywordTerms } from '../../domain/keyword-language.ts';
import { editDistance } from '../../indexes/edit-distance.ts';
import { searchWords } from '../query-terms.ts';

/**
 * Which curated answer (the owner's own answer) a visitor's question asks for, if any: each
 * curated answer is asked by its question and its `alsoAsked` phrasings; the question is compared
 * with every phrasing by word overlap (BM25 over the phrasings, normalised to the question's own
 * best possible score) and by the embedder's cosine, and the two are mixed. The best answer wins
 * only when it clears a threshold and leads the second-best answer by a margin: a question between
 * two curated answers, or near none, is left to the assistant. Pure: no storage, no model.
 */

/** One phrasing of a curated answer, with its vector from the embedder (null without a model). */
export type CuratedPhrasing = { text: string; vector: Float32Array | null };
export type CuratedEntry = { id: number; phrasings: CuratedPhrasing[] };
export type MatchTuning = { cosineWeight: number; threshold: number; margin: number };
export type CuratedMatch = { id: number; score: number; margin: number };
export type Signals = { overlap: Float64Array; cosine: Float64Array | null };

/**
 * Chosen by `npm run bench:curated` on the calibration half of StackFAQ's rephrasings (the
 * report half is never seen by the choice): docs/benchmarks.md, "Curated answers".
 */
export const DEFAULT_MATCH_TUNING: MatchTuning = { cosineWeight: 0.4, threshold: 0.45, margin: 0.08 };
/** Without vectors, word overlap alone decides, held to a stricter bar. */
export const KEYWORD_ONLY_TUNING: MatchTuning = { cosineWeight: 0, threshold: 0.7, margin: 0.1 };

const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** Words of this many letters or more may be matched to a phrasing's word one edit away. */
const TYPO_FROM = 5;

/** The terms of a text as the knowledge base's keyword search reads it: stop words out, words stemmed. */
export function curatedTerms(text: string, language: KeywordLanguage): string[] {
  if (isAnalyzed(language)) return keywordTerms(language, text);
  return searchWords(text).map((word) => english(word));
}

type Document = { entry: number; terms: Map<string, number>; length: number; vector: Float32Array | null };

export class CuratedMatcher {
  private readonly documents: Document[] = [];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;
  private readonly vocabulary: string[];

  constructor(
    private readonly entries: readonly CuratedEntry[],
    private readonly language: KeywordLanguage,
  ) {
    entries.forEach((entry, index) => {
      for (const phrasing of entry.phrasings) {
        const terms = new Map<string, number>();
        const list = curatedTerms(phrasing.text, language);
        for (const term of list) terms.set(term, (terms.get(term) ?? 0) + 1);
        for (const term of terms.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
        this.documents.push({ entry: index, terms, length: list.length, vector: phrasing.vector });
      }
    });
    this.averageLength = this.documents.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.documents.length);
    this.vocabulary = [...this.documentFrequency.keys()];
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The question's word overlap (0..1) and cosine (null without vectors) with every phrasing: what
   * `decide` mixes (the bench computes them once and tries every tuning on them).
   */
  signals(question: string, vector: Float32Array | null): Signals {
    const terms = this.questionTerms(question);
    const idf = new Map(terms.map((t) => [t, this.idf(t)]));
    // The score the question would get against a phrasing holding each of its words once: 1 is a full overlap.
    const ceiling = terms.reduce((sum, t) => sum + idf.get(t)!, 0);
    const overlap = new Float64Array(this.documents.length);
    const cosine = vector ? new Float64Array(this.documents.length) : null;
    this.documents.forEach((document, d) => {
      if (ceiling > 0) {
        const norm = BM25_K1 * (1 - BM25_B + (BM25_B * document.length) / (this.averageLength || 1));
        let score = 0;
        for (const term of terms) {
          const tf = document.terms.get(term);
          if (tf) score += (idf.get(term)! * tf * (BM25_K1 + 1)) / (tf + norm);
        }
        overlap[d] = Math.min(1, score / ceiling);
      }
      // A phrasing without a vector (stored before a model was loaded) is read by its words alone.
      if (cosine) cosine[d] = vector && document.vector ? dot(vector, document.vector) : overlap[d]!;
    });
    return { overlap, cosine };
  }

  /** The curated answer the signals point to, or null when none clearly does. */
  decide({ overlap, cosine }: Signals, tuning: MatchTuning): CuratedMatch | null {
    const best = new Float64Array(this.entries.length).fill(-Infinity);
    this.documents.forEach((document, d) => {
      const score = cosine ? tuning.cosineWeight * cosine[d]! + (1 - tuning.cosineWeight) * overlap[d]! : overlap[d]!;
      if (score > best[document.entry]!) best[document.entry] = score;
    });
    let first = -1;
    let second = -1;
    best.forEach((score, index) => {
      if (first === -1 || score > best[first]!) {
        second = first;
        first = index;
      } else if (second === -1 || score > best[second]!) second = index;
    });
    if (first === -1 || best[first] === -Infinity) return null;
    const score = best[first]!;
    const margin = score - (second === -1 || best[second] === -Infinity ? 0 : best[second]!);
    if (score < tuning.threshold || margin < tuning.margin) return null;
    return { id: this.entries[first]!.id, score, margin };
  }

  /** The curated answer the question asks for, or null when none clearly does. */
  match(question: string, vector: Float32Array | null, tuning?: MatchTuning): CuratedMatch | null {
    const usesVectors = vector !== null && this.documents.some((d) => d.vector !== null);
    const t = tuning ?? (usesVectors ? DEFAULT_MATCH_TUNING : KEYWORD_ONLY_TUNING);
    return this.decide(this.signals(question, usesVectors ? vector : null), t);
  }

  /** The question's terms, a misspelt one (in no phrasing) read as the phrasings' word one edit away. */
  private questionTerms(question: string): string[] {
    const terms = curatedTerms(question, this.language).map((term) => {
      if (this.documentFrequency.has(term) || [...term].length < TYPO_FROM || /\p{N}/u.test(term)) return term;
      const points = [...term].map((c) => c.codePointAt(0)!);
      let found: string | null = null;
      for (const known of this.vocabulary) {
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
    return Math.log(1 + (this.documents.length - df + 0.5) / (df + 0.5));
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
