import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { histogramPercentile, latencyBucket, latencyBucketUpperMs } from '../../../../server/domain/visitor-conversations.ts';

describe('answer-time histogram', () => {
  it('puts every time in a bucket whose upper bound is at most 20 % above it', () => {
    for (const ms of [10.5, 37, 99.9, 100, 250, 1234, 9_999, 60_000]) {
      const upper = latencyBucketUpperMs(latencyBucket(ms));
      assert.ok(upper >= ms - 0.5 && upper <= ms * 1.2 + 0.5, `${ms} ms → ${upper} ms`);
    }
    assert.equal(latencyBucket(0), 0);
    assert.equal(latencyBucket(Number.NaN), 0);
    assert.equal(latencyBucketUpperMs(latencyBucket(1e9)), latencyBucketUpperMs(51), 'very long times share the last bucket');
  });

  it('reads nearest-rank percentiles within 20 % of the exact ones', () => {
    const times = Array.from({ length: 1000 }, (_, i) => 50 + ((i * 7919) % 1000) * 3);
    const histogram = new Map<number, number>();
    for (const ms of times) histogram.set(latencyBucket(ms), (histogram.get(latencyBucket(ms)) ?? 0) + 1);
    const sorted = [...times].sort((a, b) => a - b);
    for (const p of [0.5, 0.95]) {
      const exact = sorted[Math.ceil(p * sorted.length) - 1]!;
      const read = histogramPercentile(histogram, p)!;
      assert.ok(read >= exact && read <= exact * 1.2 + 0.5, `p${p * 100}: ${read} against ${exact}`);
    }
    assert.equal(histogramPercentile(new Map(), 0.5), null);
  });
});
