/**
 * Turns a free-text question into an FTS5 query: its words, each quoted (so no FTS5 syntax can be
 * injected), OR'ed, with English stopwords dropped (Lucene's list) unless nothing else is left.
 * OR gives BM25 every term to weigh; quoting keeps user input from being read as operators.
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there these ' +
    'they this to was will with what which who whom whose when where why how do does did i you we our your ' +
    'me my can could would should has have had been being from about than so')
    .split(' '),
);

export function queryWords(query: string): string[] {
  return (query.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 0);
}

/** The words a keyword search looks for, each once. */
export function searchWords(query: string): string[] {
  const words = queryWords(query);
  const content = words.filter((w) => !ENGLISH_STOPWORDS.has(w));
  return [...new Set(content.length ? content : words)];
}

/** The FTS5 query for any of those words, or with `AND` all of them (null when there are none). */
export function ftsQuery(words: string[], operator: 'OR' | 'AND' = 'OR'): string | null {
  return words.length ? words.map((w) => `"${w}"`).join(` ${operator} `) : null;
}

/** Meilisearch's defaults: a word of 5 to 8 letters may hold one typo, a longer one two. */
const ONE_TYPO_FROM = 5;
const TWO_TYPOS_FROM = 9;

/**
 * How many edits away a correction of each of `words` (searchWords of `query`) may be: none for
 * words under 5 letters and for any part of a token holding a digit (numbers, ids and SKUs such
 * as `sku-42` or `240337103` are looked up only as typed), one up to 8 letters, two beyond.
 */
export function typoBudgets(query: string, words: string[]): number[] {
  const identifiers = new Set(
    query
      .normalize('NFKC')
      .toLowerCase()
      .split(/\s+/u)
      .filter((token) => /\p{N}/u.test(token))
      .flatMap((token) => token.match(/[\p{L}\p{N}]+/gu) ?? []),
  );
  return words.map((word) => {
    if (identifiers.has(word) || /\p{N}/u.test(word)) return 0;
    const letters = [...word].length;
    return letters >= TWO_TYPOS_FROM ? 2 : letters >= ONE_TYPO_FROM ? 1 : 0;
  });
}

/**
 * `text` with each word that `replacements` names (as searchWords gives it) replaced, the rest
 * kept as typed; a capital first letter stays capital.
 */
export function replaceWords(text: string, replacements: Map<string, string>): string {
  return text.replace(/[\p{L}\p{N}]+/gu, (word) => {
    const replacement = replacements.get(word.normalize('NFKC').toLowerCase());
    if (replacement === undefined) return word;
    const first = word[0]!;
    return first !== first.toLowerCase() ? replacement[0]!.toUpperCase() + replacement.slice(1) : replacement;
  });
}
