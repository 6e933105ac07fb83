/**
 * An uploaded document's long paragraph is cut into several chunks (server/pipeline/chunk-document.ts),
 * which all name that paragraph. Search takes them as one passage: one place among an item's
 * passages (not two halves of one paragraph taking two), its text the whole paragraph, scored as
 * its best part. Chunks with no paragraph (every pushed item's) stay passages of their own,
 * unchanged. Measured in docs/retrieval.md ("Files against JSON items").
 */

/** A chunk of one item with its raw scores: keyword (BM25, higher is better) and cosine similarity. */
export type ScoredChunk<C> = { chunk: C; position: number; paragraph: number | null; text: string; keyword: number; similarity: number };

/** One passage: its chunks (one unless they are parts of one paragraph). */
export type ParagraphGroup<C> = {
  /** The part that answers best: its id (and so its vector) stands for the passage. */
  best: C;
  /** The first part: where the passage starts (its page, its section). */
  first: C;
  position: number;
  text: string;
  /**
   * The best part's keyword score and the best part's similarity (each on its own). Summing the
   * parts' BM25 (with or without the item title each chunk row holds) or averaging it ranks
   * long paragraphs first and measured far worse (docs/retrieval.md).
   */
  keyword: number;
  similarity: number;
  /** Made of a document's chunks (which have a paragraph). */
  fromDocument: boolean;
};

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
        text: part.text,
        keyword: part.keyword,
        similarity: part.similarity,
        fromDocument: part.paragraph !== null,
      };
      groups.push(group);
      if (part.paragraph !== null) byParagraph.set(part.paragraph, { group, bestScore: part.keyword + part.similarity });
      continue;
    }
    const { group } = open;
    group.text = joinOverlapping(group.text, part.text);
    group.keyword = Math.max(group.keyword, part.keyword);
    group.similarity = Math.max(group.similarity, part.similarity);
    if (part.keyword + part.similarity > open.bestScore) [group.best, open.bestScore] = [part.chunk, part.keyword + part.similarity];
  }
  return groups;
}

/** The chunker repeats whole sentences or words; an overlap of fewer characters is chance. */
const MIN_OVERLAP = 4;

/**
 * Two consecutive parts of one paragraph, the overlap the chunker repeats at the start of the
 * second written once: the longest end of the first that starts the second.
 */
export function joinOverlapping(first: string, second: string): string {
  const head = second.slice(0, MIN_OVERLAP);
  if (head.length === MIN_OVERLAP) {
    for (let i = first.indexOf(head); i !== -1; i = first.indexOf(head, i + 1)) {
      if (second.startsWith(first.slice(i))) return first.slice(0, i) + second;
    }
  }
  return `${first} ${second}`;
}
