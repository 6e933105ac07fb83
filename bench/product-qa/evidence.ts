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

/** A quoted piece of an answer and the citation number that follows it (null when none does). */
export type Quote = { text: string; citation: number | null };

/**
 * The sentences an answer quotes, each with the [n] that follows it: split at [n] markers and
 * sentence ends, markers dropped, fragments of fewer than two words ignored.
 */
export function quotedSentences(answer: string): Quote[] {
  const out: Quote[] = [];
  for (const m of answer.matchAll(/([^[]*?)(?:\s*\[(\d+)\]|$)/g)) {
    if (m[0] === '') continue;
    const citation = m[2] === undefined ? null : Number(m[2]);
    for (const text of m[1]!.split(/(?<=[.!?])\s+/)) {
      if (words(text).length >= 2) out.push({ text: text.trim(), citation });
    }
  }
  return out;
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
 * candidate labelled answering this question. With the answer's citations and the question's
 * product, a sentence cited to another item counts as not answering whatever its words (two
 * products' attributes can read alike); sentences matching no candidate of the question (another
 * question's candidate of the same product) count as not answering.
 */
export function judgeEvidence(
  answer: string,
  candidates: Candidate[],
  cited?: { citations: Array<{ number: number; externalId: string }>; product: string },
): QuoteVerdict {
  const fromProduct = (q: Quote) => !cited || q.citation === null || cited.citations.find((c) => c.number === q.citation)?.externalId === cited.product;
  const quotes = quotedSentences(answer);
  const matches = quotes.map((q) => (fromProduct(q) ? matchQuote(q.text, candidates) : null));
  return {
    quoted: quotes.length,
    matched: matches.filter((m) => m !== null).length,
    answering: matches.some((m) => m?.label === 1),
  };
}
