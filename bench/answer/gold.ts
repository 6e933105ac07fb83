/** SQuAD's answer normalization (lower case, no punctuation, no articles, single spaces). */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether the answer text contains any gold answer, both normalized. */
export function containsGold(answer: string, golds: string[]): boolean {
  const normalized = ` ${normalizeAnswer(answer)} `;
  return golds.some((g) => {
    const gold = normalizeAnswer(g);
    return gold.length > 0 && normalized.includes(` ${gold} `);
  });
}
