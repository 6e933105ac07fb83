/**
 * A visitor's words read as the retrieved passages write them, as search forgives them: a word
 * run together ("glutenfree", "dairyfree") as the content's two words ("gluten-free"), since read
 * as typed it matches a word it starts with ("gluten" in "Contains: … gluten"), the opposite of
 * what was asked; and a misspelt word ("cinammon") as the passages' word a couple of edits away,
 * when search's own correction did not reach the answer (a word search found common enough).
 */
import type { CandidatePassage } from './extractive.ts';
import { contentWords, stem } from '../../language/content-terms.ts';

/** Each part of a split word is at least this long: "a" + "pple" is no reading of "apple". */
const MIN_PART = 3;

type Vocabulary = { words: Set<string>; stems: Set<string>; pairs: Map<string, string> };

/** The retrieved passages' words (and titles'), and each two adjacent ones written together. */
function vocabularyOf(candidates: CandidatePassage[]): Vocabulary {
  const texts = candidates.map((c) => `${c.item.title}\n${c.text}`.toLowerCase());
  const words = new Set(texts.flatMap((t) => t.match(/[\p{L}\p{N}]+/gu) ?? []));
  const pairs = new Map<string, string>();
  for (const text of texts) {
    for (const m of text.matchAll(/([\p{L}\p{N}]+)[\s-]+(?=([\p{L}\p{N}]+))/gu)) {
      const [a, b] = [m[1]!, m[2]!];
      if (a.length >= MIN_PART && b.length >= MIN_PART && !pairs.has(a + b)) pairs.set(a + b, `${a} ${b}`);
    }
  }
  return { words, stems: new Set([...words].map(stem)), pairs };
}

/** Each word of the question no passage holds, replaced as `read` reads it (or kept). */
function replaceUnknown(question: string, vocabulary: Vocabulary, read: (word: string) => string | null): string {
  return question.replace(/[\p{L}\p{N}]+/gu, (word) => {
    const lower = word.toLowerCase();
    // A form of a word the passages hold ("breads" for "bread") is no typo.
    if (vocabulary.words.has(lower) || vocabulary.stems.has(stem(lower)) || /\d/.test(lower)) return word;
    return read(lower) ?? word;
  });
}

/** A word no retrieved passage holds, but two adjacent words of one do when written together, as those two words. */
export function splitRunTogether(question: string, candidates: CandidatePassage[]): string {
  const vocabulary = vocabularyOf(candidates);
  return replaceUnknown(question, vocabulary, (word) => vocabulary.pairs.get(word) ?? null);
}

/**
 * The earlier turns a follow-up is read with, their run-together words split as the question's
 * are: after "do you do timbercutting", "how much does it cost?" is about timber and cutting, not
 * about a word that matches any passage naming timber.
 */
export function splitTurns(turns: string[], candidates: CandidatePassage[]): string[] {
  return turns.map((turn) => splitRunTogether(turn, candidates));
}

/** A word no retrieved passage holds, as the passages' word within the edits search would allow. */
export function correctTypos(question: string, candidates: CandidatePassage[]): string {
  const vocabulary = vocabularyOf(candidates);
  return replaceUnknown(question, vocabulary, (word) => {
    if (QUESTION_WORDS.has(word)) return null;
    // "colurs" is two edits from "colour" but its stem one: an inflected misspelling is read by its stem.
    const near = nearestWord(word, vocabulary.words) ?? nearestByStem(word, vocabulary.words);
    // Never read as a stop word: "where" is not "were".
    return near !== null && contentWords(near).length === 1 ? near : null;
  });
}

/** Words that ask, never misspelt content. */
const QUESTION_WORDS = new Set(['who', 'whom', 'whose', 'what', 'which', 'when', 'where', 'why', 'how', 'whether']);

/** Edits a misspelt word may be from the passages' word: as search allows (never below 5 letters). */
function allowedEdits(word: string): number {
  return word.length >= 8 ? 2 : word.length >= 5 ? 1 : 0;
}

/** The passages' word nearest a word none of them holds, within its allowed edits; same first letter. */
function nearestWord(word: string, vocabulary: Set<string>): string | null {
  const edits = allowedEdits(word);
  if (edits === 0) return null;
  let best: { word: string; distance: number } | null = null;
  for (const known of vocabulary) {
    if (known[0] !== word[0] || Math.abs(known.length - word.length) > edits || /\d/.test(known)) continue;
    const distance = editDistance(word, known, edits);
    if (distance <= edits && (best === null || distance < best.distance)) best = { word: known, distance };
  }
  return best?.word ?? null;
}

/** The passages' word whose stem is nearest the misspelt word's stem, within the stem's allowed edits. */
function nearestByStem(word: string, vocabulary: Set<string>): string | null {
  const wordStem = stem(word);
  if (wordStem === word) return null;
  const edits = allowedEdits(wordStem);
  if (edits === 0) return null;
  let best: { word: string; distance: number } | null = null;
  for (const known of vocabulary) {
    if (known[0] !== word[0] || /\d/.test(known)) continue;
    const knownStem = stem(known);
    if (Math.abs(knownStem.length - wordStem.length) > edits) continue;
    const distance = editDistance(wordStem, knownStem, edits);
    if (distance <= edits && (best === null || distance < best.distance)) best = { word: known, distance };
  }
  return best?.word ?? null;
}

/** Optimal string alignment distance (a swap of neighbours is one edit), cut off above `max`. */
function editDistance(a: string, b: string, max: number): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
