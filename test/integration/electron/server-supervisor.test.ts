import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ServerSupervisor, type SupervisorOptions, type SupervisorState } from '../../../electron/server-supervisor.ts';
import { forkHandle, isAlive } from './fixtures/fork-handle.ts';

const FAKE_SERVER = path.join(import.meta.dirname, 'fixtures', 'fake-server.mjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-supervisor-'));
const children: ChildProcess[] = [];
let run = 0;

after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

function setup(env: Record<string, string>, options: Partial<SupervisorOptions> = {}) {
  run += 1;
  const starts = path.join(tmp, `starts-${run}`);
  const states: SupervisorState[] = [];
  // Every process spawned, whether or not it lived long enough to write its line to `starts`.
  const spawned: number[] = [];
  const supervisor = new ServerSupervisor({
    spawn: () => {
      const handle = forkHandle(FAKE_SERVER, { env: { ...process.env, FAKE_STARTS: starts, ...env } }, children);
      spawned.push(children.at(-1)!.pid!);
      return handle;
    },
    readyTimeoutMs: 5_000,
    stopGraceMs: 5_000,
    backoff: () => 30,
    onState: (state) => states.push(state),
    ...options,
  });
  const pids = () => (fs.existsSync(starts) ? fs.readFileSync(starts, 'utf8').trim().split('\n').map(Number) : []);
  const cleanlyStopped = () =>
    fs.existsSync(`${starts}.stopped`) ? fs.readFileSync(`${starts}.stopped`, 'utf8').trim().split('\n').map(Number) : [];
  return { supervisor, states, pids, spawned, cleanlyStopped };
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('server supervisor (real child processes)', { timeout: 60_000 }, () => {
  it('resolves with the URL the server reports once ready, and stops it cleanly', async () => {
    const { supervisor, states, pids, cleanlyStopped } = setup({ FAKE_SCRIPT: 'ready', FAKE_READY_DELAY_MS: '200' });
    const url = await supervisor.start();
    assert.equal(url, 'http://127.0.0.1:7500');
    assert.deepEqual(supervisor.state, { status: 'running', url });
    assert.deepEqual(states.map((s) => s.status), ['starting', 'running']);
    assert.equal(await supervisor.start(), url, 'a second start while running does not spawn again');
    assert.equal(pids().length, 1);

    await supervisor.stop();
    assert.deepEqual(cleanlyStopped(), pids(), 'the server received the stop message and exited by itself');
    assert.equal(isAlive(pids()[0]!), false);
    assert.deepEqual(states.map((s) => s.status), ['starting', 'running', 'stopping', 'stopped']);
    await assert.rejects(supervisor.start(), /stopping/);
  });

  it('kills a server that does not become ready in time, retries, then reports the timeout', async () => {
    // Counted by spawn: on a loaded machine a process killed at 0.4 s may not have written its pid yet.
    const { supervisor, states, spawned } = setup({ FAKE_SCRIPT: 'silent' }, { readyTimeoutMs: 400, maxRestarts: 1 });
    const started = Date.now();
    await assert.rejects(supervisor.start(), /did not become ready within 0\.4 s\. It was restarted 1 times without success\./);
    assert.ok(Date.now() - started >= 800, 'two full timeouts elapsed');
    assert.equal(spawned.length, 2);
    await until(() => spawned.every((pid) => !isAlive(pid)));
    assert.deepEqual(states.map((s) => s.status), ['starting', 'restarting', 'starting', 'failed']);
    assert.equal(supervisor.state.status, 'failed');
  });

  it('restarts a server that crashes while starting, with the backoff delays, until it comes up', async () => {
    const delays: number[] = [];
    const { supervisor, states, pids } = setup(
      { FAKE_SCRIPT: 'crash,crash,ready' },
      { backoff: (attempt) => { delays.push(attempt); return 50 * attempt; } },
    );
    const url = await supervisor.start();
    assert.equal(url, 'http://127.0.0.1:7502', 'the third start is the one that reported ready');
    assert.equal(pids().length, 3);
    assert.deepEqual(delays, [1, 2]);
    const restarting = states.filter((s) => s.status === 'restarting');
    assert.deepEqual(
      restarting.map((s) => s.status === 'restarting' && [s.attempt, s.delayMs, s.reason]),
      [
        [1, 50, 'The server exited while starting (exit code 3).'],
        [2, 100, 'The server exited while starting (exit code 3).'],
      ],
    );
    await supervisor.stop();
  });

  it('restarts a server that dies while running and is running again afterwards', async () => {
    const { supervisor, states, pids } = setup({ FAKE_SCRIPT: 'ready-crash,ready', FAKE_CRASH_AFTER_MS: '150' });
    assert.equal(await supervisor.start(), 'http://127.0.0.1:7500');
    await until(() => supervisor.state.status === 'running' && supervisor.state.url === 'http://127.0.0.1:7501');
    assert.equal(await supervisor.whenReady(), 'http://127.0.0.1:7501');
    assert.equal(pids().length, 2);
    assert.equal(isAlive(pids()[0]!), false);
    const restarting = states.find((s) => s.status === 'restarting');
    assert.equal(restarting?.status === 'restarting' && restarting.reason, 'The server stopped unexpectedly (exit code 2).');
    await supervisor.stop();
  });

  it('forgets earlier restarts once the server has run for a while', async () => {
    const { supervisor, pids } = setup(
      { FAKE_SCRIPT: 'ready-crash', FAKE_CRASH_AFTER_MS: '150' },
      { maxRestarts: 1, stableAfterMs: 50 },
    );
    await supervisor.start();
    await until(() => pids().length >= 4);
    assert.notEqual(supervisor.state.status, 'failed', 'each run lasted longer than stableAfterMs, so none counts against the limit');
    await supervisor.stop();
  });

  it('gives up after the restart limit and keeps the last reason', async () => {
    const { supervisor, pids } = setup({ FAKE_SCRIPT: 'crash' }, { maxRestarts: 2 });
    await assert.rejects(supervisor.start(), /exited while starting \(exit code 3\)\. It was restarted 2 times/);
    assert.equal(pids().length, 3);
    await assert.rejects(supervisor.whenReady(), /restarted 2 times/);
  });

  it('does not restart a server that reports why it cannot start, and passes the reason on', async () => {
    const reason = 'listen EADDRINUSE: address already in use 127.0.0.1:7410';
    const { supervisor, states, pids } = setup({ FAKE_SCRIPT: 'failed', FAKE_REASON: reason });
    await assert.rejects(supervisor.start(), (error: Error) => error.message === reason);
    assert.deepEqual(supervisor.state, { status: 'failed', reason });
    assert.equal(pids().length, 1);
    assert.ok(!states.some((s) => s.status === 'restarting'));
  });

  it('can be started again after it failed (the Restart Server menu item)', async () => {
    const { supervisor, pids } = setup({ FAKE_SCRIPT: 'failed,ready' });
    await assert.rejects(supervisor.start());
    assert.equal(await supervisor.start(), 'http://127.0.0.1:7501');
    assert.equal(pids().length, 2);
    await supervisor.stop();
  });

  it('kills a server that ignores the stop request once the grace period is over', async () => {
    const { supervisor, pids, cleanlyStopped } = setup({ FAKE_SCRIPT: 'stubborn' }, { stopGraceMs: 400 });
    await supervisor.start();
    const started = Date.now();
    await supervisor.stop();
    assert.ok(Date.now() - started >= 390, 'waited for the grace period');
    assert.equal(isAlive(pids()[0]!), false);
    assert.deepEqual(cleanlyStopped(), []);
    assert.equal(supervisor.state.status, 'stopped');
  });

  it('a stop during start-up waits for the server to finish starting, then stops it', async () => {
    const { supervisor, pids, cleanlyStopped } = setup({ FAKE_SCRIPT: 'ready', FAKE_READY_DELAY_MS: '300' });
    const starting = assert.rejects(supervisor.start(), /stopped/);
    await until(() => pids().length === 1);
    await supervisor.stop();
    await starting;
    assert.deepEqual(cleanlyStopped(), pids());
    assert.equal(supervisor.state.status, 'stopped');
  });

  it('does not restart during a pending backoff once stopped', async (t) => {
    // The supervisor's timers run on a clock the test moves: the backoff's time passes at once.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { supervisor, states, pids } = setup({ FAKE_SCRIPT: 'crash,ready' }, { backoff: () => 300 });
    const restarting = new Promise<void>((resolve) => {
      const poll = () => (supervisor.state.status === 'restarting' ? resolve() : setImmediate(poll));
      poll();
    });
    const starting = assert.rejects(supervisor.start(), /stopped/);
    await restarting;
    await supervisor.stop();
    await starting;
    t.mock.timers.tick(300);
    assert.deepEqual(states.map((s) => s.status), ['starting', 'restarting', 'stopping', 'stopped'], 'no start after the stop');
    assert.equal(pids().length, 1);
  });
});
