import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commitSettled } from '../../../../server/domain/commit-batcher.ts';

describe('commitSettled', () => {
  // A test double for the writer's commit: refuses any batch holding the input 'bad'.
  const commit = (inputs: string[]) => {
    if (inputs.includes('bad')) throw new Error('refused');
    return inputs.map((input) => input.toUpperCase());
  };

  it('commits all at once when it can, and one by one when the batch fails, failing only the culprit', () => {
    assert.deepEqual(commitSettled(commit, ['a', 'b']), [
      { ok: true, out: 'A' },
      { ok: true, out: 'B' },
    ]);
    const settled = commitSettled(commit, ['a', 'bad', 'c']);
    assert.deepEqual(settled.map((s) => s.ok), [true, false, true]);
    assert.deepEqual([settled[0], settled[2]], [
      { ok: true, out: 'A' },
      { ok: true, out: 'C' },
    ]);
  });
});
