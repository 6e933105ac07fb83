import type { ConversationTurn } from '../../contract/ask.ts';
import { contentWords, stem } from './terms.ts';

/** A question word, weighted by how rare it is in the knowledge base. */
export type WeightedTerm = { stem: string; word: string; weight: number };

/** Earlier user turns weigh this much of the question's own words. */
const CONTEXT_WEIGHT = 0.4;
/** User turns of the conversation that still shape retrieval. */
const CONTEXT_TURNS = 2;
/** Distinct words weighed at most (each costs one index lookup); the question's come first. */
const MAX_TERMS = 48;

/**
 * The text retrieval searches for: the question, preceded by the last user turns, so a follow-up
 * ("and the opening hours?") still finds the subject it refers to.
 */
export function retrievalQuery(question: string, conversation: ConversationTurn[] = []): string {
  const earlier = conversation.filter((t) => t.role === 'user').slice(-CONTEXT_TURNS).map((t) => t.content);
  return [...earlier, question].join('\n').slice(-1_000);
}

/**
 * The question's distinct content words with inverse-document-frequency weights; words of the
 * earlier user turns that the question lacks join at a lower weight.
 */
export function weightedTerms(
  question: string,
  conversation: ConversationTurn[],
  idf: (word: string) => number,
): WeightedTerm[] {
  const terms = new Map<string, WeightedTerm>();
  const add = (text: string, factor: number) => {
    for (const word of contentWords(text)) {
      if (terms.size >= MAX_TERMS) return;
      const s = stem(word);
      if (!terms.has(s)) terms.set(s, { stem: s, word, weight: idf(word) * factor });
    }
  };
  add(question, 1);
  for (const turn of conversation.filter((t) => t.role === 'user').slice(-CONTEXT_TURNS).reverse()) add(turn.content, CONTEXT_WEIGHT);
  return [...terms.values()];
}
