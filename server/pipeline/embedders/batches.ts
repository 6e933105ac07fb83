import type { TokenCounter } from '../types.ts';

export type BatchPlan = {
  batchSize: number;
  maxTokens: number;
  countTokens: TokenCounter;
  /** Embeds one batch; returns one unit-length vector per text, same order. */
  embedBatch: (texts: string[]) => Promise<Float32Array[]>;
};

/**
 * Embeds `texts` in batches and returns the vectors in input order. Models pad each batch to its
 * longest text, so texts are grouped by token length to spend less work on padding.
 */
export async function embedInBatches(texts: string[], plan: BatchPlan): Promise<Float32Array[]> {
  // Whitespace has no meaning to embed, and USE-lite would even misalign its output on an empty text.
  if (texts.some((text) => text.trim() === '')) throw new RangeError('Cannot embed an empty or blank text');
  const order = texts
    .map((text, index) => ({ index, tokens: Math.min(plan.countTokens(text), plan.maxTokens) }))
    .sort((a, b) => a.tokens - b.tokens)
    .map((entry) => entry.index);
  const vectors = new Array<Float32Array>(texts.length);
  for (let start = 0; start < order.length; start += plan.batchSize) {
    const indices = order.slice(start, start + plan.batchSize);
    const batch = await plan.embedBatch(indices.map((i) => texts[i]!));
    if (batch.length !== indices.length) throw new Error(`Model returned ${batch.length} vectors for ${indices.length} texts`);
    indices.forEach((textIndex, row) => {
      vectors[textIndex] = batch[row]!;
    });
  }
  return vectors;
}
