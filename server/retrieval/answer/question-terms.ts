import type { ConversationTurn } from '../../../common/contract/ask.ts';
import type { KeywordLanguage } from '../../../common/contract/knowledge.ts';
import { isAnalyzed } from '../../language/keyword-language.ts';
import { queryWords } from '../../language/query-words.ts';
import { contentWords, wordTerm } from '../../language/content-terms.ts';

/** A question word, weighted by how rare it is in the knowledge base. */
export type WeightedTerm = { stem: string; word: string; weight: number };

/** Earlier user turns weigh this much of the question's own words. */
const CONTEXT_WEIGHT = 0.4;
/** User turns of the conversation that still shape retrieval. */
const CONTEXT_TURNS = 2;
/** Distinct words weighed at most (each costs one index lookup); the question's come first. */
const MAX_TERMS = 48;

/**
 * Words that point back to something said before: "when are *they* baked?", "what does *it* cost?".
 * English, as the continuing openings below: in another language only a question naming almost
 * nothing is read with the conversation.
 */
const REFERRING_WORDS = new Set(
  'it its they them their theirs this that these those he him his she her hers'.split(' '),
);
/** Openings that continue the last question: "and on Sundays?", "what about delivery?". */
const CONTINUING = /^(and|or|but|also|what about|how about)\b/;

/**
 * Whether a question needs the conversation to be understood: it refers back, continues the last
 * question, or names almost nothing ("Price?"). A question that stands on its own is answered on
 * its own, so moving to a new subject mid-conversation is not answered from the old one.
 */
export function leansOnConversation(question: string, language: KeywordLanguage = 'en'): boolean {
  if (contentWords(question, language).length < 2) return true;
  if (isAnalyzed(language)) return false;
  const words = queryWords(question);
  return words.some((w) => REFERRING_WORDS.has(w)) || CONTINUING.test(words.join(' '));
}

/**
 * Whether a question about the page the asker is on means the page's item: it points at something
 * ("how long is *this*?", "is *it* waterproof?") or names almost nothing ("Price?").
 */
export function refersToItem(question: string, language: KeywordLanguage = 'en'): boolean {
  if (contentWords(question, language).length < 2) return true;
  return !isAnalyzed(language) && queryWords(question).some((w) => REFERRING_WORDS.has(w));
}

/**
 * Whether a question has words enough to name its subject ("is it possible to get gluten-free
 * bread?"), unlike "how much does it cost?", which cannot be understood alone.
 */
export function namesOwnSubject(question: string, language: KeywordLanguage = 'en'): boolean {
  return contentWords(question, language).length >= 3;
}

/**
 * The earlier user turns that may shape the answer to this question: the last ones when it leans
 * on them, none when it stands on its own.
 */
export function contextTurns(question: string, conversation: ConversationTurn[] = [], language: KeywordLanguage = 'en'): string[] {
  if (!leansOnConversation(question, language)) return [];
  return conversation.filter((t) => t.role === 'user').slice(-CONTEXT_TURNS).map((t) => t.content);
}

/**
 * The text retrieval searches for: the question, preceded by the earlier turns it is read with, so
 * a follow-up ("and the opening hours?") still finds the subject it refers to.
 */
export function retrievalQuery(question: string, context: string[]): string {
  return [...context, question].join('\n').slice(-1_000);
}

/**
 * The question's distinct content words with inverse-document-frequency weights; words of the
 * earlier turns it is read with that the question lacks join at a lower weight. Words are read in
 * the knowledge base's keyword language (language/content-terms.ts).
 */
export function weightedTerms(question: string, context: string[], idf: (word: string) => number, language: KeywordLanguage = 'en'): WeightedTerm[] {
  const terms = new Map<string, WeightedTerm>();
  const add = (text: string, factor: number) => {
    for (const word of contentWords(text, language)) {
      if (terms.size >= MAX_TERMS) return;
      const s = wordTerm(word, language);
      if (!terms.has(s)) terms.set(s, { stem: s, word, weight: idf(word) * factor });
    }
  };
  add(question, 1);
  for (const turn of [...context].reverse()) add(turn, CONTEXT_WEIGHT);
  return [...terms.values()];
}
