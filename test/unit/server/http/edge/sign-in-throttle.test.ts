import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SignInThrottle } from '../../../../../server/http/edge/sign-in-throttle.ts';

describe('sign-in throttle', () => {
  it('forgets expired tries once it tracks many usernames, so guessing names cannot grow it without end', () => {
    let now = 0;
    const throttle = new SignInThrottle(60_000, () => now);
    for (let i = 0; i <= 10_000; i++) throttle.fail([`name:user${i}`]);
    const tracked = () => (throttle as unknown as { failures: Map<string, number[]> }).failures.size;
    assert.equal(tracked(), 10_001);
    now = 120_000;
    throttle.fail(['name:one-more']);
    assert.equal(tracked(), 1);
  });

  it('lets five tries through, then asks for a wait that doubles with each failure, up to a minute', () => {
    let now = 1_000_000;
    const throttle = new SignInThrottle(15 * 60_000, () => now);
    const keys = SignInThrottle.keys('Owner', '127.0.0.2');
    const waits: number[] = [];
    for (let i = 0; i < 14; i++) {
      const wait = throttle.retryAfter(keys);
      waits.push(wait);
      now += wait * 1000;
      throttle.fail(keys);
    }
    assert.deepEqual(waits, [0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60]);
    // Another address guessing the same name waits as long; other names from that address go on
    // until the address has failed twenty times.
    assert.equal(throttle.retryAfter(SignInThrottle.keys('owner', '127.0.0.9')), 60);
    assert.equal(throttle.retryAfter(SignInThrottle.keys('someone', '127.0.0.2')), 0);
    for (let i = 0; i < 6; i++) throttle.fail(SignInThrottle.keys(`name${i}`, '127.0.0.2'));
    assert.equal(throttle.retryAfter(SignInThrottle.keys('someone', '127.0.0.2')), 1);
    assert.equal(throttle.retryAfter(SignInThrottle.keys('someone', '127.0.0.9')), 0);
    throttle.succeed(keys);
    assert.equal(throttle.retryAfter(keys), 0);
  });
});
