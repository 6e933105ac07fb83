import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wakeableSleep } from '../../../../server/pipeline/wakeable-sleep.ts';

describe("wakeableSleep: a worker thread's idle wait", () => {
  it('ends at once when woken, long before its time', async () => {
    const { sleep, wake } = wakeableSleep();
    const started = performance.now();
    const slept = sleep(60_000);
    wake();
    await slept;
    assert.ok(performance.now() - started < 30_000);
  });

  it('ends by itself after its time, and a wake with nobody sleeping does nothing', async () => {
    const { sleep, wake } = wakeableSleep();
    wake();
    let ended = false;
    const slept = sleep(20).then(() => (ended = true));
    assert.equal(ended, false);
    await slept;
    assert.equal(ended, true);
  });
});
