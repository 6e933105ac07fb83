/**
 * Token arithmetic for chunking. Pieces of text are counted once each and their counts summed,
 * which assumes counts are close to additive: count(a + ' ' + b) ≈ count(a) + count(b). That holds
 * for word-piece and SentencePiece tokenizers up to two corrections measured here once per counter:
 * a fixed cost every call pays (e.g. BERT's [CLS] and [SEP]) and the cost of the separator between
 * pieces (USE-lite's SentencePiece turns a newline into an extra token). Whatever error remains is
 * caught by the chunker's final recount of every chunk.
 */
import type { TokenCounter } from '../../embedders/embedder.ts';

export type TokenCosts = {
  /** Tokens every count includes, even of the empty string. */
  fixed: number;
  /** Tokens of a piece of text on its own, without the fixed cost. */
  of(text: string): number;
  /** Extra tokens of a separator ('\n\n', '\n' or ' ') between two pieces. */
  join(separator: string): number;
};

const calibrated = new WeakMap<TokenCounter, TokenCosts>();

export function tokenCosts(count: TokenCounter): TokenCosts {
  let costs = calibrated.get(count);
  if (!costs) {
    costs = calibrate(count);
    calibrated.set(count, costs);
  }
  return costs;
}

function calibrate(count: TokenCounter): TokenCosts {
  const fixed = count('');
  const of = (text: string) => Math.max(0, count(text) - fixed);
  const word = of('a');
  const joinCost = (separator: string) => Math.max(0, of(`a${separator}a`) - 2 * word);
  const byKind = { paragraph: joinCost('\n\n'), line: joinCost('\n'), space: joinCost(' ') };
  return {
    fixed,
    of,
    join: (separator) =>
      separator === '' ? 0 : separator.includes('\n\n') ? byKind.paragraph : separator.includes('\n') ? byKind.line : byKind.space,
  };
}

/**
 * Longest prefix of `text`, cut after a whole word when possible, that counts at most `limit`
 * tokens. Binary searches keep this at O(log n) counts.
 */
export function truncateToTokens(text: string, limit: number, count: TokenCounter): string {
  if (count(text) <= limit) return text;
  const wordEnds = [...text.matchAll(/\S+/g)].map((match) => match.index + match[0].length);
  const words = largestFitting(wordEnds.length, (n) => count(text.slice(0, wordEnds[n - 1])) <= limit);
  if (words > 0) return text.slice(0, wordEnds[words - 1]);
  // Not even the first word fits: cut inside it, keeping surrogate pairs whole.
  const chars = [...text];
  const kept = largestFitting(chars.length, (n) => count(chars.slice(0, n).join('')) <= limit);
  return chars.slice(0, kept).join('').trimEnd();
}

/** Largest n in [0, max] with fits(n), given fits is true up to some n and false after. */
function largestFitting(max: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}
