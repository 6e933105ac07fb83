/**
 * The pipeline's seams: normalize → chunk → embed → index. Each stage is a pure function or a
 * small interface so the worker can compose them and tests can drive each alone.
 */

/** Counts tokens the way the embedding model will see them (its own tokenizer, or a faithful count). */
export type TokenCounter = (text: string) => number;

/** A model that turns texts into L2-normalized vectors, loaded once per worker thread. */
export interface Embedder {
  /** Stable identity of the model, recorded with every vector (e.g. `use-lite`, `onnx:all-MiniLM-L6-v2`). */
  readonly id: string;
  readonly dimension: number;
  /** Tokens the model reads; text beyond this does not change the vector. */
  readonly maxTokens: number;
  countTokens: TokenCounter;
  /** One vector per text, same order, each of length `dimension` and unit length. */
  embed(texts: string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

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
};

export type ChunkOptions = {
  /** Most tokens of `embedText` (title included). */
  maxTokens: number;
  /** Tokens of the previous chunk's tail repeated at the start of the next. */
  overlapTokens: number;
  countTokens: TokenCounter;
};
