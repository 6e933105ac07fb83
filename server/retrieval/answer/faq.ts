/**
 * FAQ-shaped content, matched question to question: an uploaded FAQ's heading that asks ("### Do
 * you have dairy-free options?") over its answer, an item whose title asks ("Can I bring my own
 * container?"), and "Q: … A: …" pairs. A visitor's question that means the owner's question is
 * answered with the owner's answer, whatever words that answer uses: "dairy-free" need not be in
 * "made without milk or butter".
 */
import type { KeywordLanguage } from '../../../common/contract/knowledge.ts';
import type { CandidatePassage, ScoredSentence } from './extractive.ts';
import type { WeightedTerm } from './question-terms.ts';
import { contentTerms, termsMatch } from '../../language/content-terms.ts';

/** One question the content asks and answers, in the passage it comes from. */
export type FaqEntry = { passage: number; question: string; answer: string };

/** How much of each question the other must hold for the two to mean the same. */
const FAQ_MATCH = 0.75;

/** The separator of a passage's heading path (pipeline/extract/heading-path.ts). */
const HEADING_SEPARATOR = ' › ';
/** "Q: …" (or "Question:", "Frage:") up to the "A:" line that answers it. */
const QA_PAIR = /(?:^|\n)\s*(?:q|question|frage)\s*[:.)]\s*(.+?\?)\s*\n\s*(?:a|answer|antwort)\s*[:.)]\s*([\s\S]+?)(?=\n\s*(?:q|question|frage)\s*[:.)]|$)/gi;

/** The questions the candidate passages answer, each with its answer's text. */
export function faqEntries(candidates: CandidatePassage[]): FaqEntry[] {
  const entries: FaqEntry[] = [];
  candidates.forEach((passage, index) => {
    for (const match of passage.text.matchAll(QA_PAIR)) entries.push({ passage: index, question: match[1]!.trim(), answer: match[2]!.trim() });
    const heading = passage.section?.split(HEADING_SEPARATOR).at(-1);
    const asking = heading?.trim().endsWith('?') ? heading : passage.item.title.trim().endsWith('?') ? passage.item.title : null;
    if (asking && !QA_PAIR.test(passage.text)) entries.push({ passage: index, question: asking.trim(), answer: passage.text });
    QA_PAIR.lastIndex = 0;
  });
  return entries;
}

/**
 * How nearly two questions mean the same, 0–1: the share of the visitor's weighted words the
 * owner's question holds, and of the owner's words the visitor's holds; the smaller of the two.
 */
export function questionSimilarity(terms: WeightedTerm[], faqQuestion: string, question: string, language: KeywordLanguage = 'en'): number {
  const total = terms.reduce((sum, t) => sum + t.weight, 0);
  if (total === 0) return 0;
  const faqStems = contentTerms(faqQuestion, language);
  const asked = contentTerms(question, language);
  if (faqStems.length === 0) return 0;
  const covered = terms.filter((t) => faqStems.some((s) => termsMatch(s, t.stem, language))).reduce((sum, t) => sum + t.weight, 0);
  // Alternatives ("a plumber, electrician or handyman") are one thing asked: a visitor naming one of them asks it.
  const groups = alternativeGroups(faqQuestion, language);
  const units = [...groups, ...faqStems.filter((s) => !groups.some((g) => g.includes(s))).map((s) => [s])];
  const back = units.filter((unit) => unit.some((s) => asked.some((a) => termsMatch(a, s, language)))).length / units.length;
  return Math.min(covered / total, back);
}

/** Single words listed as alternatives: "X or Y", "X, Y or Z". */
const ALTERNATIVES = /[\p{L}-]+(?:\s*,\s*[\p{L}-]+)*\s*,?\s+or\s+[\p{L}-]+/giu;

/** The stems of each list of alternatives in a question. */
function alternativeGroups(question: string, language: KeywordLanguage): string[][] {
  const groups: string[][] = [];
  for (const match of question.matchAll(ALTERNATIVES)) {
    const stems = match[0].split(/\s*,\s*|\s+or\s+/i).flatMap((word) => contentTerms(word, language));
    if (stems.length > 1) groups.push(stems);
  }
  return groups;
}

/** The entry whose question means the visitor's, if one does (the best when several do). */
export function matchingFaq(candidates: CandidatePassage[], terms: WeightedTerm[], question: string, language: KeywordLanguage = 'en'): FaqEntry | null {
  let best: { entry: FaqEntry; similarity: number } | null = null;
  for (const entry of faqEntries(candidates)) {
    const similarity = questionSimilarity(terms, entry.question, question, language);
    if (similarity >= FAQ_MATCH && (best === null || similarity > best.similarity)) best = { entry, similarity };
  }
  return best?.entry ?? null;
}

/**
 * The sentences of the matched entry's answer, in reading order, that may be quoted: what the
 * answer shows. Empty when none may (then the question is answered as any other).
 */
export function faqAnswerSentences(entry: FaqEntry, scored: ScoredSentence[], maxSentences: number): ScoredSentence[] {
  const answer = entry.answer.replace(/\s+/g, ' ');
  return scored
    .filter((s) => s.passage === entry.passage && s.quotable && answer.includes(s.text.replace(/\s+/g, ' ')))
    .sort((a, b) => a.position - b.position)
    .filter((s, i, all) => all.findIndex((o) => o.text === s.text) === i)
    .slice(0, maxSentences);
}
