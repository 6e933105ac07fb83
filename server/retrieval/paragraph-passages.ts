/**
 * An uploaded document's long paragraph is cut into several chunks (server/pipeline/chunk-document.ts),
 * which all name that paragraph. Search takes them as one passage: one place among an item's
 * passages (not two halves of one paragraph taking two), its text the whole paragraph, and its
 * score the paragraph's, as a pushed item holding that paragraph is scored on all of its text.
 * Chunks with no paragraph (every pushed item's) stay passages of their own, unchanged.
 */

/** A chunk of one item with its raw scores: keyword (BM25, higher is better) and cosine similarity. */
export type ScoredChunk<C> = { chunk: C; position: number; paragraph: number | null; text: string; keyword: number; similarity: number };

/** One passage: its chunks in position order (one unless they are parts of one paragraph). */
export type ParagraphGroup<C> = {
  /** The part that answers best: its id and vector stand for the passage. */
  best: C;
  first: C;
  /** Positions of the first and last part in the item. */
  position: number;
  lastPosition: number;
  text: string;
  keyword: number;
  similarity: number;
};

/**
 * How the parts' scores make the paragraph's: keyword scores summed (a question's words spread
 * over both halves count as in the whole paragraph), similarity the best part's.
 */
export function groupByParagraph<C>(chunks: ScoredChunk<C>[]): ParagraphGroup<C>[] {
  const groups: ParagraphGroup<C>[] = [];
  const byParagraph = new Map<number, { group: ParagraphGroup<C>; bestScore: number }>();
  for (const part of [...chunks].sort((a, b) => a.position - b.position)) {
    const open = part.paragraph === null ? undefined : byParagraph.get(part.paragraph);
    if (!open) {
      const group: ParagraphGroup<C> = {
        best: part.chunk,
        first: part.chunk,
        position: part.position,
        lastPosition: part.position,
        text: part.text,
        keyword: part.keyword,
        similarity: part.similarity,
      };
      groups.push(group);
      if (part.paragraph !== null) byParagraph.set(part.paragraph, { group, bestScore: part.keyword + part.similarity });
      continue;
    }
    const { group } = open;
    group.text = joinOverlapping(group.text, part.text);
    group.lastPosition = part.position;
    group.keyword = combineKeyword(group.keyword, part.keyword);
    group.similarity = Math.max(group.similarity, part.similarity);
    if (part.keyword + part.similarity > open.bestScore) [group.best, open.bestScore] = [part.chunk, part.keyword + part.similarity];
  }
  return groups;
}

const mode = process.env.LOCALIQ_PARAGRAPH_KEYWORD ?? 'sum';
function combineKeyword(a: number, b: number): number {
  return mode === 'max' ? Math.max(a, b) : a + b;
}

/**
 * Two consecutive parts of one paragraph, the overlap the chunker repeats at the start of the
 * second written once: the longest end of the first that starts the second.
 */
export function joinOverlapping(first: string, second: string): string {
  // The chunker repeats whole sentences or words; an overlap of a few characters is chance.
  const head = second.slice(0, MIN_OVERLAP);
  if (head.length === MIN_OVERLAP) {
    for (let i = first.indexOf(head); i !== -1; i = first.indexOf(head, i + 1)) {
      if (second.startsWith(first.slice(i))) return first.slice(0, i) + second;
    }
  }
  return `${first} ${second}`;
}
const MIN_OVERLAP = 4;
