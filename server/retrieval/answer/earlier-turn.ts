/**
 * What a follow-up that points back is about. After "Do you have croissants?" answered from the
 * butter croissant, "How much do they cost?" asks the croissant's price: read on its own words it
 * matches whatever says "costs" (the delivery charge). Such a question is answered from the item
 * the previous answer cited, as a question about "this" is answered from the page's item.
 */
import type { ConversationTurn } from '../../../common/contract/ask.ts';
import type { KeywordLanguage } from '../../../common/contract/knowledge.ts';
import { isAnalyzed } from '../../language/keyword-language.ts';
import { queryWords } from '../../language/query-words.ts';
import type { CandidatePassage } from './extractive.ts';
import { namesOwnSubject } from './question-terms.ts';

/** Words that point back to what the previous turn was about. */
const BACK_WORDS = new Set('it its they them their that those'.split(' '));
/** Words that point at what the asker is looking at: the page's item when there is one. */
const PAGE_WORDS = new Set('this these'.split(' '));

/**
 * Whether the question points back to the previous turn's subject and names none of its own: "how
 * much do they cost?", "how long does it take?". With the page's item known, "this"/"these" point
 * at it instead; without one they point back too. English wording only.
 */
export function pointsBack(question: string, language: KeywordLanguage, onPage: boolean): boolean {
  if (isAnalyzed(language) || namesOwnSubject(question, language)) return false;
  return queryWords(question).some((w) => BACK_WORDS.has(w) || (!onPage && PAGE_WORDS.has(w)));
}

/** The last exchange before the question: the visitor's question and, when the conversation carries it, its answer. */
export function lastExchange(conversation: ConversationTurn[] = []): { question: string; answer: string | null } | null {
  const at = conversation.findLastIndex((t) => t.role === 'user');
  if (at < 0) return null;
  const next = conversation[at + 1];
  return { question: conversation[at]!.content, answer: next?.role === 'assistant' ? next.content : null };
}

/**
 * The item whose passage the answer's first quote comes from: the quote is the text before its
 * first "[n]" marker, with the "Product title: " an answer naming several products puts before it.
 * Null when no retrieved passage holds it (a generated answer, the fallback message).
 */
export function citedItem(answer: string, candidates: CandidatePassage[]): CandidatePassage['item'] | null {
  const quote = normalise((answer.split(/\s\[\d+\]/)[0] ?? '').replace(/…/g, ''));
  if (quote.length < 8 || !/\s\[\d+\]/.test(answer)) return null;
  for (const candidate of candidates) {
    const text = normalise(candidate.text);
    const title = normalise(candidate.item.title);
    const unlabelled = quote.startsWith(`${title}: `) ? quote.slice(title.length + 2) : quote;
    if (text.includes(quote) || text.includes(unlabelled)) return candidate.item;
  }
  return null;
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}
