import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextDiskFullWait } from '../../../../server/domain/disk-condition.ts';

describe("a worker's waits while the disk is full", () => {
  it('start at a second, double, and stay at a minute', () => {
    const waits: number[] = [];
    let wait = 0;
    for (let i = 0; i < 8; i++) waits.push((wait = nextDiskFullWait(wait)));
    assert.deepEqual(waits, [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
  });
});
