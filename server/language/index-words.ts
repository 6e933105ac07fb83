/** A word as FTS5's unicode61 tokenizer cuts it out of text: letters, digits and marks. */
export const INDEX_WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** The words of a text as the keyword index cuts them, in order, NFKC-normalised and lower case. */
export function indexWords(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(INDEX_WORD) ?? [];
}

/** A word as typo tolerance compares it: lower case, diacritics removed, as unicode61 folds them. */
export function foldWord(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
