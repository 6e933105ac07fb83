import { queryWords } from '../query-terms.ts';

/**
 * Words that carry no topic: Lucene's English stopwords plus question words and fillers, so
 * "what year did…" is matched on its content, not on "what" or "did".
 */
const STOPWORDS = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there these ' +
    'they this to was will with what which who whom whose when where why how do does did i you we our your ' +
    'me my can could would should has have had been being from about than so its it\'s s also any some ' +
    'were am he she his her him them us one many much more most other after before during over under ' +
    'name named called tell please know get got there\'s let type kind')
    .split(' '),
);

/**
 * A light English suffix stripper: enough to match "represented" with "represent" and "teams" with
 * "team" inside retrieved sentences, where a full stemmer would add nothing measurable.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /^\d/.test(word)) return word;
  const rules: Array<[RegExp, string]> = [
    [/ies$/, 'y'],
    [/(ss|us|is)$/, '$1'],
    [/([^s])s$/, '$1'],
    [/eed$/, 'ee'],
    [/(\w{3,})(ing|ed)$/, '$1'],
    [/(\w{3,})ly$/, '$1'],
  ];
  for (const [pattern, replacement] of rules) {
    if (pattern.test(word)) {
      word = word.replace(pattern, replacement);
      break;
    }
  }
  // "stopped" → "stopp" → "stop"; "located" → "locat" matches "location" through the prefix rule.
  return word.replace(/([^aeiouls])\1$/, '$1').replace(/e$/, '');
}

/** The content words of a text, lower-cased, in order (duplicates kept). */
export function contentWords(text: string): string[] {
  return queryWords(text).filter((w) => !STOPWORDS.has(w));
}

/** The content words of a text, stemmed. */
export function contentTerms(text: string): string[] {
  return contentWords(text).map(stem);
}

/** Whether two stems match: equal, or sharing a long enough prefix ("locat" / "location"). */
export function termsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const shorter = a.length < b.length ? a : b;
  const longer = shorter === a ? b : a;
  return shorter.length >= 5 && longer.startsWith(shorter);
}
