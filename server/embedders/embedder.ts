/** What an embedding model offers the pipeline's chunker and workers, and the query embedder. */

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
  /**
   * Caps the texts of each model call by what `limit` says before the call (null: the model's own
   * batch size). A pipeline worker shortens its calls while search's queries wait for them.
   */
  limitCalls?(limit: () => number | null): void;
  close(): Promise<void>;
}
