import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGING_MS, backoffMs, contentHash, formatEstimate, sortKey } from '../../../../server/domain/jobs.ts';
import { JOB_OVERHEAD_CHARACTERS, jobCost, LaneClock, laneOf } from '../../../../server/domain/fair-queue.ts';
import { ThroughputMeter } from '../../../../server/domain/throughput.ts';
import { FILE_LIMITS } from '../../../../common/contract/files.ts';

describe('job rules', () => {
  it('claim order: high before normal before low, FIFO within a level, no starvation', () => {
    const t0 = 1_000_000;
    assert.ok(sortKey(t0 + 1000, 0) < sortKey(t0, 1));
    assert.ok(sortKey(t0, 1) < sortKey(t0 + 1, 1));
    assert.ok(sortKey(t0, 2) < sortKey(t0 + 2 * AGING_MS + 1, 0), 'an old low job overtakes fresh high jobs');
  });

  it('fair order: the jobs of a lane arrive one after another at the measured cost, a push in an idle lane arrives now', () => {
    const lanes = new LaneClock();
    const t0 = 1_000_000;
    const bulk = Array.from({ length: 4 }, () => lanes.arrive(laneOf('import', 500), t0, 250));
    assert.deepEqual(bulk, [t0, t0 + 250, t0 + 500, t0 + 750]);
    assert.equal(lanes.arrive(laneOf('import', 1), t0 + 100, 250), t0 + 100, "the same integration's single push has a lane of its own");
    assert.equal(lanes.arrive(laneOf('crm', 500), t0 + 100, 250), t0 + 100);
    assert.equal(lanes.arrive(laneOf('import', 500), t0 + 5_000, 250), t0 + 5_000, 'a lane that caught up starts from now');
    assert.equal(jobCost({ title: 'ab', content: 'cde' }), 5 + JOB_OVERHEAD_CHARACTERS);
  });

  it("an uploaded file costs its size, not its name's length, up to the most text one file may yield", () => {
    const sha256 = 'a'.repeat(64);
    const file = (bytes: number) => ({ title: 'catalogue.pdf', content: 'catalogue.pdf', file: { sha256, name: 'catalogue.pdf', bytes } });
    assert.equal(jobCost(file(300_000)), 300_000 + JOB_OVERHEAD_CHARACTERS);
    assert.equal(jobCost(file(50 * 1024 * 1024)), FILE_LIMITS.textCharacters + JOB_OVERHEAD_CHARACTERS);
    assert.ok(jobCost(file(300_000)) > 100 * jobCost({ title: 'catalogue.pdf', content: 'catalogue.pdf' }));
  });

  it("the pipeline's capacity counts the time it worked, not the time it waited for pushes", () => {
    let now = 0;
    const meter = new ThroughputMeter(2, 60_000, () => now, 4_000);
    assert.equal(meter.costPerSecond(), 4_000, 'the prior until a second of work is measured');
    for (let i = 0; i < 4; i++) {
      now += 60_000; // a push a minute
      meter.record(1);
      meter.recordWork(10_000, 500);
    }
    assert.equal(meter.costPerSecond(), 20_000);
  });

  it('backoff doubles and is capped', () => {
    assert.deepEqual([1, 2, 3, 4].map(backoffMs), [2000, 4000, 8000, 16000]);
    assert.equal(backoffMs(50), 600_000);
  });

  it('content hash prefers the caller hash, else covers data and source type', () => {
    const data = { title: 't', content: 'c' };
    assert.equal(contentHash({ sourceType: 'PAGE', data: { ...data, hash: 'mine' } }), 'mine');
    assert.notEqual(contentHash({ sourceType: 'PAGE', data }), contentHash({ sourceType: 'ARTICLE', data }));
    assert.notEqual(contentHash({ sourceType: 'PAGE', data }), contentHash({ sourceType: 'PAGE', data: { ...data, content: 'd' } }));
  });

  it('estimates are whole seconds, at least 1', () => {
    assert.equal(formatEstimate(0, 2), '1s');
    assert.equal(formatEstimate(10, 2), '5s');
    assert.equal(formatEstimate(11, 2), '6s');
  });
});
