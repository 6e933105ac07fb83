import type { ItemSummaryRow } from '../../storage/search-repo.ts';
import type { WeightedTerm } from './question-terms.ts';
import { splitSentences } from './sentences.ts';
import { contentTerms, termsMatch } from './terms.ts';

/** A retrieved passage the answer may quote from. */
export type CandidatePassage = {
  item: ItemSummaryRow;
  chunkId: number;
  text: string;
  /** The item's retrieval score relative to the best item's, 0–1. */
  retrieval: number;
  /** The passage's own score from search (keyword and meaning), 0–1. */
  passageScore: number;
};

export type ScoredSentence = {
  text: string;
  /** Index into the candidate passages. */
  passage: number;
  /** Share of the question's weighted words the sentence (or its item's title, at half) contains. */
  coverage: number;
  score: number;
  stems: string[];
};

export type SelectionOptions = { maxSentences: number; maxChars: number; keepRatio: number; maxOverlap: number };

/** Measured on SQuAD questions outside the reported subset (docs/assistant.md). */
export const DEFAULT_SELECTION: SelectionOptions = { maxSentences: 3, maxChars: 700, keepRatio: 0.75, maxOverlap: 0.5 };

/** Sentences shorter than this many words are headings or fragments, rarely answers. */
const MIN_WORDS = 4;
/** A title word stands in for a missing sentence word at half weight ("the game" in "Super Bowl 50"). */
const TITLE_CREDIT = 0.5;

/**
 * A question about what something costs. Its answer ("Price: 29.00 EUR", the line a product's
 * sourceData becomes) shares no word with "How much does the titanium mug cost?", so it would
 * lose to the description that names the mug.
 */
const ASKS_PRICE = /\b(?:how much (?:is|are|does|do|did|will|would|for|to)|prices?|pricing|costs?|costing|expensive|cheap(?:er|est)?|fees?)\b/i;
/** An amount of money: "€12", "$ 5.99", "29.00 EUR", "25 euros", or a "Price:" line. */
const MONEY =
  /(?:[$€£¥₹]\s?\d|\d(?:[\d.,']*\d)?\s?(?:[€£¥₹]|(?:EUR|USD|GBP|CHF|JPY|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|INR|CNY|euros?|dollars?|cents?)\b)|\bprice:\s*\S)/i;
/** How much a sentence that states an amount gains when the question asks what something costs. */
const PRICE_CREDIT = 0.3;

export function asksPrice(question: string): boolean {
  return ASKS_PRICE.test(question);
}

export function scoreSentences(passages: CandidatePassage[], terms: WeightedTerm[], wantsPrice = false): ScoredSentence[] {
  const total = terms.reduce((sum, t) => sum + t.weight, 0);
  if (total === 0) return [];
  const scored: ScoredSentence[] = [];
  passages.forEach((passage, index) => {
    const titleStems = contentTerms(passage.item.title);
    for (const text of splitSentences(passage.text)) {
      const stems = contentTerms(text);
      const statesPrice = wantsPrice && MONEY.test(text);
      if (text.split(/\s+/).length < MIN_WORDS && !statesPrice) continue;
      let covered = 0;
      for (const term of terms) {
        if (stems.some((s) => termsMatch(s, term.stem))) covered += term.weight;
        else if (titleStems.some((s) => termsMatch(s, term.stem))) covered += term.weight * TITLE_CREDIT;
      }
      const coverage = covered / total;
      const score = coverage + 0.2 * passage.retrieval + 0.1 * passage.passageScore + (statesPrice ? PRICE_CREDIT : 0);
      scored.push({ text, passage: index, coverage, score, stems });
    }
  });
  return scored.sort((a, b) => b.score - a.score);
}

/** A sentence that asks ("How do I report a deceased user?") restates a question; it answers none. */
const ASKS = /\?["'”’)\]]*$/;

/**
 * The best sentence that does not ask, then the next best that score close to it and say
 * something the chosen ones do not (word overlap below `maxOverlap`), within a sentence and
 * character budget.
 */
export function selectSentences(scored: ScoredSentence[], options: SelectionOptions = DEFAULT_SELECTION): ScoredSentence[] {
  const chosen: ScoredSentence[] = [];
  let chars = 0;
  for (const sentence of scored) {
    if (chosen.length >= options.maxSentences) break;
    if (ASKS.test(sentence.text)) continue;
    if (chosen.length > 0 && sentence.score < options.keepRatio * chosen[0]!.score) break;
    if (chosen.length > 0 && chars + sentence.text.length > options.maxChars) continue;
    if (chosen.some((c) => c.text === sentence.text || overlap(c.stems, sentence.stems) > options.maxOverlap)) continue;
    chosen.push(sentence);
    chars += sentence.text.length;
  }
  // Only questions found: the best of them still says where the subject is.
  if (chosen.length === 0 && scored.length > 0) chosen.push(scored[0]!);
  return chosen;
}

/** Jaccard overlap of two sentences' content words. */
function overlap(a: string[], b: string[]): number {
  const setA = new Set(a);
  const setB = new Set(b);
  let shared = 0;
  for (const s of setA) if (setB.has(s)) shared++;
  const union = setA.size + setB.size - shared;
  return union === 0 ? 1 : shared / union;
}
