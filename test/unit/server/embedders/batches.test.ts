import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cheapestBatchSizes, embedInBatches } from '../../../../server/embedders/batches.ts';
import { useLiteCallCost } from '../../../../server/embedders/use-lite.ts';

describe('batches: where the texts of one embed call are cut into model calls', () => {
  /** Every way to cut `count` sorted texts into runs of 1..max, by brute force. */
  function allCuts(count: number, max: number): number[][] {
    if (count === 0) return [[]];
    const cuts: number[][] = [];
    for (let size = 1; size <= Math.min(max, count); size++) for (const rest of allCuts(count - size, max)) cuts.push([size, ...rest]);
    return cuts;
  }
  const totalCost = (tokens: number[], sizes: number[]) => {
    let start = 0;
    return sizes.reduce((sum, size) => sum + useLiteCallCost(size, tokens[(start += size) - 1]!), 0);
  };

  it('finds the cheapest cut of sorted token lengths', () => {
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    assert.deepEqual(cheapestBatchSizes([40], 8, useLiteCallCost), [1]);
    assert.deepEqual(cheapestBatchSizes([], 8, useLiteCallCost), []);
    for (let trial = 0; trial < 60; trial++) {
      const tokens = Array.from({ length: 1 + (trial % 12) }, () => 4 + Math.floor(random() * 125)).sort((a, b) => a - b);
      const sizes = cheapestBatchSizes(tokens, 8, useLiteCallCost);
      assert.equal(sizes.reduce((a, b) => a + b, 0), tokens.length);
      assert.ok(sizes.every((size) => size >= 1 && size <= 8), `sizes ${sizes}`);
      const best = Math.min(...allCuts(tokens.length, 8).map((cut) => totalCost(tokens, cut)));
      assert.ok(Math.abs(totalCost(tokens, sizes) - best) < 1e-9, `tokens ${tokens}: ${sizes} costs more than the best cut`);
    }
  });

  it('keeps short texts out of a batch padded to a long one, and returns vectors in input order', async () => {
    const calls: string[][] = [];
    // A test double for a model: one-hot vectors by text length, recording each call.
    const embedBatch = async (texts: string[]) => {
      calls.push(texts);
      return texts.map((text) => Float32Array.from({ length: 64 }, (_, i) => (i === text.length ? 1 : 0)));
    };
    const texts = ['x'.repeat(60), 'ab', 'x'.repeat(61), 'abc', 'x'.repeat(62), 'a'];
    const plan = { batchSize: 8, maxTokens: 128, countTokens: (text: string) => text.length, embedBatch, callCost: useLiteCallCost };
    const vectors = await embedInBatches(texts, plan);
    assert.deepEqual(calls, [['a', 'ab', 'abc'], ['x'.repeat(60), 'x'.repeat(61), 'x'.repeat(62)]]);
    texts.forEach((text, i) => assert.equal(vectors[i]![text.length], 1));
    calls.length = 0;
    await embedInBatches(texts, { ...plan, callCost: undefined });
    assert.equal(calls.length, 1, 'without a cost model, runs of batchSize as before');
  });

  it('lets the event loop turn between model calls, so a message waiting for the thread is taken in after the call in hand', async () => {
    const order: string[] = [];
    // A test double for a model whose calls settle in promise callbacks only, as USE-lite's do.
    const embedBatch = async (texts: string[]) => {
      order.push(`call of ${texts.length}`);
      return texts.map(() => Float32Array.of(1));
    };
    const channel = new MessageChannel();
    channel.port2.onmessage = () => order.push('message');
    channel.port1.postMessage('query');
    await embedInBatches(['a', 'b', 'c', 'd', 'e'], { batchSize: 2, maxTokens: 128, countTokens: () => 1, embedBatch });
    channel.port1.close();
    assert.deepEqual(order, ['call of 2', 'message', 'call of 2', 'call of 1']);
  });

  it('reads its call limit before each call: once a query waits, the calls left take one text each', async () => {
    const calls: number[] = [];
    let limit = 8;
    const embedBatch = async (texts: string[]) => {
      calls.push(texts.length);
      limit = 1; // a query came in during this call
      return texts.map(() => Float32Array.of(1));
    };
    const texts = Array.from({ length: 11 }, (_, i) => `text ${i}`);
    const vectors = await embedInBatches(texts, { batchSize: 8, maxTokens: 128, countTokens: () => 1, embedBatch, callLimit: () => limit });
    assert.deepEqual(calls, [8, 1, 1, 1]);
    assert.equal(vectors.length, 11);
    assert.ok(vectors.every((v) => v instanceof Float32Array));
  });
});
