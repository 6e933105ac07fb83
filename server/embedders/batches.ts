import type { TokenCounter } from './embedder.ts';

export type BatchPlan = {
  /** Most texts in one call to the model (bounds its working memory). */
  batchSize: number;
  maxTokens: number;
  countTokens: TokenCounter;
  /** Embeds one batch; returns one unit-length vector per text, same order. */
  embedBatch: (texts: string[]) => Promise<Float32Array[]>;
  /**
   * Measured work of one call on `size` texts padded to `tokens` each (any unit). When given,
   * batches are cut where the total is least; without it, texts go in runs of `batchSize`.
   */
  callCost?: (size: number, tokens: number) => number;
  /**
   * The most texts the next call may take, read before each call (at most `batchSize`): a
   * pipeline worker makes its calls short while search's queries wait for them (Embedder.limitCalls).
   */
  callLimit?: () => number;
};

/**
 * Embeds `texts` in batches and returns the vectors in input order. Models pad each batch to its
 * longest text, so texts are grouped by token length to spend less work on padding.
 */
export async function embedInBatches(texts: string[], plan: BatchPlan): Promise<Float32Array[]> {
  // Whitespace has no meaning to embed, and USE-lite would even misalign its output on an empty text.
  if (texts.some((text) => text.trim() === '')) throw new RangeError('Cannot embed an empty or blank text');
  const sorted = texts
    .map((text, index) => ({ index, tokens: Math.min(plan.countTokens(text), plan.maxTokens) }))
    .sort((a, b) => a.tokens - b.tokens);
  const cut = (from: number, limit: number) =>
    plan.callCost
      ? cheapestBatchSizes(sorted.slice(from).map((entry) => entry.tokens), limit, plan.callCost)
      : fixedBatchSizes(sorted.length - from, limit);
  let limit = Math.min(plan.batchSize, plan.callLimit?.() ?? plan.batchSize);
  let sizes = cut(0, limit);
  const vectors = new Array<Float32Array>(texts.length);
  let start = 0;
  while (start < sorted.length) {
    // One turn of the thread's event loop before each model call: a model call settles in promise
    // callbacks only, so without it a pipeline worker took in a search's query (or a stop) only
    // once the whole claim was embedded, not after the call in hand.
    if (start > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      const now = Math.min(plan.batchSize, plan.callLimit?.() ?? plan.batchSize);
      if (now !== limit) {
        limit = now;
        sizes = cut(start, limit);
      }
    }
    const size = sizes.shift()!;
    const indices = sorted.slice(start, start + size).map((entry) => entry.index);
    start += size;
    const batch = await plan.embedBatch(indices.map((i) => texts[i]!));
    if (batch.length !== indices.length) throw new Error(`Model returned ${batch.length} vectors for ${indices.length} texts`);
    indices.forEach((textIndex, row) => {
      vectors[textIndex] = batch[row]!;
    });
  }
  return vectors;
}

function fixedBatchSizes(count: number, batchSize: number): number[] {
  return Array.from({ length: Math.ceil(count / batchSize) }, (_, i) => Math.min(batchSize, count - i * batchSize));
}

/**
 * Sizes of consecutive batches of the length-sorted texts that minimize the summed call cost
 * (each batch costs as if all its texts were as long as its last). A few texts of a claim are
 * sorted into batches as even as the whole set would be: runs of 8 mixed a 20-token text with
 * 120-token ones, and the model pads every text of a call to the longest. (What a text is batched with
 * moves its vector by float rounding only, ~1e-7.)
 */
export function cheapestBatchSizes(sortedTokens: number[], batchSize: number, callCost: (size: number, tokens: number) => number): number[] {
  const count = sortedTokens.length;
  // best[i]: least cost of the first i texts; last[i]: size of the batch ending at i.
  const best = new Float64Array(count + 1).fill(Infinity);
  const last = new Int32Array(count + 1);
  best[0] = 0;
  for (let end = 1; end <= count; end++) {
    for (let size = 1; size <= Math.min(batchSize, end); size++) {
      const cost = best[end - size]! + callCost(size, sortedTokens[end - 1]!);
      if (cost < best[end]!) {
        best[end] = cost;
        last[end] = size;
      }
    }
  }
  const sizes: number[] = [];
  for (let end = count; end > 0; end -= last[end]!) sizes.push(last[end]!);
  return sizes.reverse();
}
