/**
 * Turns a free-text question into an FTS5 query: its words, each quoted (so no FTS5 syntax can be
 * injected), OR'ed, with English stopwords dropped (Lucene's list) unless nothing else is left.
 * OR gives BM25 every term to weigh; quoting keeps user input from being read as operators.
 */
const STOPWORDS = new Set(
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
  const content = words.filter((w) => !STOPWORDS.has(w));
  return [...new Set(content.length ? content : words)];
}

/** The FTS5 query for any of those words, or with `AND` all of them (null when there are none). */
export function ftsQuery(words: string[], operator: 'OR' | 'AND' = 'OR'): string | null {
  return words.length ? words.map((w) => `"${w}"`).join(` ${operator} `) : null;
}
