/**
 * Misspelt queries for the typo-tolerance eval: a fixed seed, and in about half the words of five
 * letters or more one slip of the kind people make: a letter dropped, doubled, swapped with the
 * next, or replaced by a neighbouring key (QWERTY). Words with a digit are left alone, as search
 * never corrects them. Short queries are a question's content words only (what a shop visitor
 * types into a search box).
 */
import { searchWords } from '../../server/language/query-words.ts';

const QWERTY_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const SHARE = 0.5;
const SHORTEST = 5;

/** Keys beside each letter, on its row and the rows above and below. */
const NEIGHBOURS: Map<string, string[]> = (() => {
  const at = new Map<string, [number, number]>();
  QWERTY_ROWS.forEach((row, r) => [...row].forEach((key, c) => at.set(key, [r, c])));
  const neighbours = new Map<string, string[]>();
  for (const [key, [r, c]] of at) {
    const near: string[] = [];
    for (const [other, [r2, c2]] of at) if (other !== key && Math.abs(r - r2) <= 1 && Math.abs(c - c2) <= 1) near.push(other);
    neighbours.set(key, near);
  }
  return neighbours;
})();

/** A seeded generator (the same sequence on every run). */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export type Slip = 'drop' | 'double' | 'swap' | 'neighbour';
const SLIPS: Slip[] = ['drop', 'double', 'swap', 'neighbour'];

/** One slip in a word (lower-case letters are what slip; the case of the rest is kept). */
export function slip(word: string, kind: Slip, next: () => number): string {
  const letters = [...word];
  const i = Math.floor(next() * letters.length);
  switch (kind) {
    case 'drop':
      letters.splice(i, 1);
      break;
    case 'double':
      letters.splice(i, 0, letters[i]!);
      break;
    case 'swap': {
      const j = Math.min(i, letters.length - 2);
      if (letters[j] === letters[j + 1]) return slip(word, 'drop', next);
      [letters[j], letters[j + 1]] = [letters[j + 1]!, letters[j]!];
      break;
    }
    case 'neighbour': {
      const lower = letters[i]!.toLowerCase();
      const near = NEIGHBOURS.get(lower);
      if (!near) return slip(word, 'drop', next);
      const replacement = near[Math.floor(next() * near.length)]!;
      letters[i] = letters[i] === lower ? replacement : replacement.toUpperCase();
      break;
    }
  }
  return letters.join('');
}

/** The text with about half of its words of five letters or more misspelt. */
export function misspell(text: string, next: () => number): string {
  return text.replace(/[\p{L}\p{N}]+/gu, (word) => {
    if ([...word].length < SHORTEST || /\p{N}/u.test(word) || next() >= SHARE) return word;
    return slip(word, SLIPS[Math.floor(next() * SLIPS.length)]!, next);
  });
}

/** A question's content words, as keyword search keeps them (stopwords out). */
export function shortQuery(question: string): string {
  return searchWords(question).join(' ');
}
