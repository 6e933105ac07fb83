import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { type BackgroundPass, FailureStreak, PassRunner } from '../../../../server/domain/background-pass.ts';

/** A promise the test resolves or rejects when it wants a run to end. */
function gate() {
  let open!: () => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

/** Lets the promises a tick started settle (setImmediate is not mocked). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await nextTurn();
}

type Logged = { failed: Array<[string, string]>; recovered: Array<[string, number]> };
function recorder(): Logged & { log: ConstructorParameters<typeof PassRunner>[1] } {
  const logged: Logged = { failed: [], recovered: [] };
  return {
    ...logged,
    log: {
      failed: (pass, error) => logged.failed.push([pass, (error as Error).message]),
      recovered: (pass, failedRuns) => logged.recovered.push([pass, failedRuns]),
    },
  };
}

describe('PassRunner', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setInterval'] }));
  afterEach(() => mock.timers.reset());

  it('runs each pass at its interval, and at start when it asks to', async () => {
    const runs: string[] = [];
    const runner = new PassRunner(
      [
        { name: 'often', intervalMs: 100, run: () => void runs.push('often') },
        { name: 'at-start', intervalMs: 1_000, runAtStart: true, run: () => void runs.push('at-start') },
      ],
      recorder().log,
    );
    runner.start();
    await settle();
    assert.deepEqual(runs, ['at-start']);
    for (let i = 0; i < 10; i++) {
      mock.timers.tick(100);
      await settle();
    }
    assert.equal(runs.filter((r) => r === 'often').length, 10);
    assert.equal(runs.filter((r) => r === 'at-start').length, 2);
    await runner.stop();
    mock.timers.tick(10_000);
    await settle();
    assert.equal(runs.length, 12, 'no run after stop');
  });

  it('never overlaps two runs of one pass: a tick while a run is under way is skipped', async () => {
    let started = 0;
    let running = 0;
    let most = 0;
    const gates = [gate(), gate()];
    const pass: BackgroundPass = {
      name: 'slow',
      intervalMs: 100,
      run: async () => {
        const mine = gates[started++]!;
        running += 1;
        most = Math.max(most, running);
        await mine.promise;
        running -= 1;
      },
    };
    const runner = new PassRunner([pass], recorder().log);
    runner.start();
    mock.timers.tick(100);
    await settle();
    assert.equal(started, 1);
    mock.timers.tick(500);
    await settle();
    assert.equal(started, 1, 'five ticks came while the first run was under way');
    gates[0]!.open();
    await settle();
    mock.timers.tick(100);
    await settle();
    assert.equal(started, 2, 'the next tick after the run ended runs again');
    assert.equal(most, 1);
    gates[1]!.open();
    await runner.stop();
  });

  it('logs a failing pass once per streak of failures, runs it again at the next tick, and says when it works again', async () => {
    let failing = true;
    let runs = 0;
    const logged = recorder();
    const runner = new PassRunner(
      [
        {
          name: 'flaky',
          intervalMs: 100,
          run: async () => {
            runs += 1;
            if (failing) throw new Error(`database is locked (${runs})`);
          },
        },
      ],
      logged.log,
    );
    runner.start();
    for (let i = 0; i < 3; i++) {
      mock.timers.tick(100);
      await settle();
    }
    assert.equal(runs, 3, 'every tick ran again');
    assert.deepEqual(logged.failed, [['flaky', 'database is locked (1)']], 'logged once for the streak');
    failing = false;
    mock.timers.tick(100);
    await settle();
    assert.deepEqual(logged.recovered, [['flaky', 3]]);
    failing = true;
    mock.timers.tick(100);
    await settle();
    assert.deepEqual(logged.failed.map(([, message]) => message), ['database is locked (1)', 'database is locked (5)'], 'a new streak is logged again');
    await runner.stop();
  });

  it('a pass that throws, rejects or logs into a throwing log does not stop the others', async () => {
    const runs: string[] = [];
    const runner = new PassRunner(
      [
        { name: 'throws', intervalMs: 100, run: () => { throw new Error('sync failure'); } },
        { name: 'rejects', intervalMs: 100, run: () => Promise.reject(new Error('async failure')) },
        { name: 'works', intervalMs: 100, run: () => void runs.push('works') },
      ],
      { failed: () => { throw new Error('the log itself failed'); } },
    );
    runner.start();
    for (let i = 0; i < 3; i++) {
      mock.timers.tick(100);
      await settle();
    }
    assert.deepEqual(runs, ['works', 'works', 'works']);
    await runner.stop();
  });

  it('stop asks each pass to stop, awaits a run under way, then flushes it', async () => {
    const steps: string[] = [];
    const running = gate();
    const runner = new PassRunner(
      [
        {
          name: 'long',
          intervalMs: 100,
          run: async () => {
            steps.push('run started');
            await running.promise;
            steps.push('run ended');
          },
          stop: () => {
            steps.push('stop asked');
            // The pass ends its run at its next step once asked, as the retentions do.
            setImmediate(() => running.open());
          },
          flush: () => void steps.push('flushed'),
        },
      ],
      recorder().log,
    );
    runner.start();
    mock.timers.tick(100);
    await settle();
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    assert.equal(stopped, false);
    await stopping;
    assert.deepEqual(steps, ['run started', 'stop asked', 'run ended', 'flushed']);
    assert.equal(runner.stop(), runner.stop(), 'one stop, however often asked');
  });

  it('stop waits for a run that only ends by itself, and logs a stop that fails without skipping the others', async () => {
    const running = gate();
    const logged = recorder();
    let flushed = false;
    const runner = new PassRunner(
      [
        { name: 'busy', intervalMs: 100, run: () => running.promise },
        { name: 'broken-stop', intervalMs: 100, run: () => {}, stop: () => { throw new Error('cannot stop'); }, flush: () => (flushed = true) },
      ],
      logged.log,
    );
    runner.start();
    mock.timers.tick(100);
    await settle();
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await settle();
    assert.equal(stopped, false, 'the run under way holds the stop');
    running.open();
    await stopping;
    assert.deepEqual(logged.failed, [['broken-stop', 'cannot stop']]);
    assert.equal(flushed, true);
  });

  it('refuses two passes of one name and an interval that is not above 0', () => {
    const pass = { name: 'twice', intervalMs: 100, run: () => {} };
    assert.throws(() => new PassRunner([pass, pass], recorder().log), /two background passes are named twice/);
    assert.throws(() => new PassRunner([{ ...pass, intervalMs: 0 }], recorder().log), /needs an interval above 0 ms/);
  });
});

describe('FailureStreak', () => {
  it('says which failure starts a streak, and how long a streak lasted', () => {
    const streak = new FailureStreak();
    assert.equal(streak.succeeded(), 0);
    assert.equal(streak.failed(), true);
    assert.equal(streak.failed(), false);
    assert.equal(streak.succeeded(), 2);
    assert.equal(streak.failed(), true);
  });
});
