/** Word-level agreement of an extracted text with the expected one (bench:site-extraction and its unit test). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Word-level precision, recall and F1 of `found` against `expected`, repeats counted. */
export function wordF1(found: string, expected: string): { precision: number; recall: number; f1: number } {
  const want = new Map<string, number>();
  for (const word of words(expected)) want.set(word, (want.get(word) ?? 0) + 1);
  const got = words(found);
  let overlap = 0;
  for (const word of got) {
    const left = want.get(word) ?? 0;
    if (left > 0) {
      overlap++;
      want.set(word, left - 1);
    }
  }
  const expectedCount = words(expected).length;
  const precision = got.length ? overlap / got.length : 0;
  const recall = expectedCount ? overlap / expectedCount : 0;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}
