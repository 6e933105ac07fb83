/**
 * The one paged retention (server/domain/paged-retention.ts) both retentions are: a page at a
 * time with a turn of the event loop between, stopping at the next page, and, run by the pass
 * runner, a page that fails (the database busy) logged once and tried again at the next tick.
 * Before the runner, a retention's own timer let that failure reject unhandled, which ends a Node
 * 20 process: the server stopped.
 */
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, it, mock } from 'node:test';
import { PassRunner } from '../../../../server/domain/background-pass.ts';
import { JobHistoryRetention } from '../../../../server/domain/job-history-retention.ts';
import { PagedRetention } from '../../../../server/domain/paged-retention.ts';

describe('PagedRetention', () => {
  afterEach(() => mock.timers.reset());

  it('removes page after page until none is left, and tells the total', async () => {
    let left = 5;
    const passes: number[] = [];
    const retention = new PagedRetention({
      name: 'pages',
      intervalMs: 1_000,
      begin: () => () => {
        const removed = Math.min(2, left);
        left -= removed;
        return { removed, more: left > 0 };
      },
      onPass: (removed) => passes.push(removed),
    });
    assert.equal(await retention.pass(), 5);
    assert.equal(await retention.pass(), 0);
    assert.deepEqual(passes, [5], 'a pass that removed nothing is not told');
  });

  it('ends a pass under way at its next page when stopped', async () => {
    let pages = 0;
    const retention = new PagedRetention({ name: 'endless', intervalMs: 1_000, begin: () => () => ({ removed: ++pages, more: true }) });
    const pass = retention.pass();
    await nextTurn();
    await retention.stop();
    const removedPages = pages;
    assert.ok(removedPages >= 1);
    await pass;
    assert.equal(pages, removedPages, 'no page after the stop');
  });

  it('run by the runner, a page the database refuses is logged once and the pass runs again at its next tick', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    let busy = true;
    let attempts = 0;
    const removed: number[] = [];
    const store = {
      prune: () => {
        attempts += 1;
        if (busy) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
        return { removed: 3, next: null };
      },
    };
    const failed: string[] = [];
    const retention = new JobHistoryRetention(store, 30, (n) => removed.push(n), () => 100 * 86_400_000);
    const runner = new PassRunner([retention], { failed: (pass, error) => failed.push(`${pass}: ${(error as Error).message}`) });
    runner.start();
    for (let turn = 0; turn < 5; turn++) await nextTurn();
    assert.equal(attempts, 1, 'the pass at start-up');
    mock.timers.tick(retention.intervalMs);
    for (let turn = 0; turn < 5; turn++) await nextTurn();
    assert.equal(attempts, 2);
    assert.deepEqual(failed, ['job-history-retention: database is locked']);
    busy = false;
    mock.timers.tick(retention.intervalMs);
    for (let turn = 0; turn < 5; turn++) await nextTurn();
    assert.deepEqual(removed, [3], 'the next tick removed what the busy ones could not');
    await runner.stop();
  });
});
