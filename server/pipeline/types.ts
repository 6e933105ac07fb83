/**
 * The pipeline's seams: normalize → chunk → embed → index. Each stage is a pure function or a
 * small interface so the worker can compose them and tests can drive each alone. The embedding
 * model's interface (`Embedder`) lives with the embedders (../embedders/embedder.ts).
 */

import type { TokenCounter } from '../embedders/embedder.ts';

/** An item's content made ready for chunking: clean text, nothing of the source's markup. */
export type NormalizedItem = {
  title: string;
  /** Body text: paragraphs separated by blank lines, NFC, whitespace folded inside paragraphs. */
  text: string;
};

export type Chunk = {
  /** Position of the chunk in its item, from 0. */
  index: number;
  /** The passage itself, as shown in search results and citations. */
  text: string;
  /** What is embedded and indexed: the item title carried in, then the passage. */
  embedText: string;
  tokenCount: number;
  /** Of a file's passage: the PDF page it is on (1-based). */
  page?: number;
  /** Of a file's passage: the headings above it, "Returns › Damaged goods". */
  section?: string;
  /**
   * Of a file's passage: the paragraph of the document it comes from (0-based; the first one of a
   * passage of whole paragraphs). The passages cut from one long paragraph share it.
   */
  paragraph?: number;
};

export type ChunkOptions = {
  /** Most tokens of `embedText` (title included). */
  maxTokens: number;
  /** Tokens of the previous chunk's tail repeated at the start of the next. */
  overlapTokens: number;
  countTokens: TokenCounter;
  /**
   * A passage holds whole paragraphs, or part of one (a paragraph too long for one passage is
   * cut into passages of its own, overlapping only each other). For documents, whose paragraphs
   * are the author's units of meaning: a passage that ran on into the next paragraph would be
   * found for, and cited as, neither well.
   */
  wholeParagraphs?: boolean;
};
