import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HostLimiter } from '../../../../server/sources/host-limiter.ts';

/** A clock that moves only when slept on, recording each sleep. */
function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  return { sleeps, clock: { now: () => now, sleep: async (ms: number) => { sleeps.push(ms); now += ms; } } };
}

describe('HostLimiter', () => {
  it('runs at most two requests at a time per host, others beside them', async () => {
    const limiter = new HostLimiter(fakeClock().clock);
    const active = new Map<string, number>();
    let most = 0;
    const releases: Array<() => void> = [];
    const task = (host: string) => limiter.run(host, null, async () => {
      active.set(host, (active.get(host) ?? 0) + 1);
      most = Math.max(most, active.get(host)!);
      await new Promise<void>((resolve) => releases.push(resolve));
      active.set(host, active.get(host)! - 1);
    });
    const all = [task('a'), task('a'), task('a'), task('a'), task('b')];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(active.get('a'), 2);
    assert.equal(active.get('b'), 1);
    while (releases.length) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(all);
    assert.equal(most, 2);
  });
  it('with a crawl delay, runs one at a time, each start the delay after the one before', async () => {
    const { clock, sleeps } = fakeClock();
    const limiter = new HostLimiter(clock);
    const starts: number[] = [];
    await Promise.all([1, 2, 3].map(() => limiter.run('a', 2, async () => void starts.push(clock.now()))));
    assert.deepEqual(starts, [0, 2000, 4000]);
    assert.deepEqual(sleeps, [2000, 2000]);
  });
});
