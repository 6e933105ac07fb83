import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateLimiter } from '../../../../../server/http/edge/rate-limiter.ts';

describe('rate limiter', () => {
  it('allows the burst, then one request per refill interval, per key', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 3, () => now);
    assert.deepEqual([1, 2, 3].map(() => limiter.take('a')), [0, 0, 0]);
    assert.equal(limiter.take('a'), 1);
    assert.equal(limiter.take('b'), 0);
    now += 500;
    assert.equal(limiter.take('a'), 0);
  });

  it('a charge spends tokens beyond the burst, down to one burst of debt, and the key waits it off', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 3, () => now);
    limiter.charge('a', 100);
    // 3 - 100 is floored at -3: 4 tokens short of one request, 2 seconds at 2 a second.
    assert.equal(limiter.take('a'), 2);
    assert.equal(limiter.take('b'), 0);
    now += 2_000;
    assert.equal(limiter.take('a'), 0);
  });
});
