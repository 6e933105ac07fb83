/**
 * Which labelled candidate an answer quotes: the answer's sentences (citation markers removed)
 * matched to the product's candidates by the share of a quoted sentence's words that the
 * candidate holds. An extractive answer quotes sentences of the item, and an item's sentence is
 * a candidate's (or a "Label: value" line read from an attribute candidate), so a quoted sentence
 * lies within one candidate. Pure functions.
 */
import { type Candidate, parseAttribute } from './dataset.ts';

/** Share of a quoted sentence's words a candidate must hold for the sentence to be its. */
export const QUOTE_MATCH = 0.7;

export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The sentences an answer quotes: split at [n] markers and sentence ends, markers dropped, fragments of fewer than two words ignored. */
export function quotedSentences(answer: string): string[] {
  return answer
    .split(/\s*\[\d+\]\s*|(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => words(s).length >= 2);
}

/** A candidate's words as the item holds it: an attribute read as its key and value. */
export function candidateWords(candidate: Candidate): Set<string> {
  if (candidate.source === 'attribute') {
    const attribute = parseAttribute(candidate.text);
    if (attribute) return new Set(words(`${attribute.key.replace(/_/g, ' ')} ${String(attribute.value)}`));
  }
  return new Set(words(candidate.text));
}

/** The candidate a quoted sentence is most likely from, when it holds at least QUOTE_MATCH of its words. */
export function matchQuote(sentence: string, candidates: Candidate[]): Candidate | null {
  const quoted = words(sentence);
  if (quoted.length === 0) return null;
  let best: Candidate | null = null;
  let bestShare = 0;
  for (const c of candidates) {
    const held = candidateWords(c);
    const share = quoted.filter((w) => held.has(w)).length / quoted.length;
    if (share > bestShare || (share === bestShare && best !== null && best.label === 0 && c.label === 1)) {
      best = c;
      bestShare = share;
    }
  }
  return bestShare >= QUOTE_MATCH ? best : null;
}

export type QuoteVerdict = { quoted: number; matched: number; answering: boolean };

/**
 * Whether an answer's quoted evidence is labelled answering: one of its quoted sentences lies in a
 * candidate labelled answering this question. Sentences matching no candidate of the question
 * (another question's candidate of the same product, another product) count as not answering.
 */
export function judgeEvidence(answer: string, candidates: Candidate[]): QuoteVerdict {
  const sentences = quotedSentences(answer);
  const matches = sentences.map((s) => matchQuote(s, candidates));
  return {
    quoted: sentences.length,
    matched: matches.filter((m) => m !== null).length,
    answering: matches.some((m) => m?.label === 1),
  };
}
