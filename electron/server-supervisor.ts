/**
 * Keeps the local server process alive for the desktop app: starts it, waits for its readiness
 * message (or gives up after a timeout), restarts it with backoff when it dies, and stops it
 * cleanly on quit. It knows nothing of Electron: `spawn` returns any process handle with the
 * small interface below (an Electron utility process in the app, a Node child process in tests).
 */

/** Messages the server entry sends to the shell. */
export type ServerMessage = { type: 'ready'; url: string } | { type: 'failed'; reason: string } | { type: 'stopped' };
/** Messages the shell sends to the server entry. */
export type ShellMessage = { type: 'stop' };

export interface ServerHandle {
  postMessage(message: ShellMessage): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number | null) => void): unknown;
  /** Ends the process at once (used only after the stop grace period). */
  kill(): unknown;
}

export type SupervisorState =
  | { status: 'idle' }
  | { status: 'starting'; attempt: number }
  | { status: 'running'; url: string }
  | { status: 'restarting'; reason: string; attempt: number; delayMs: number }
  | { status: 'failed'; reason: string }
  | { status: 'stopping' }
  | { status: 'stopped' };

export type SupervisorOptions = {
  spawn: () => ServerHandle;
  /** How long the server may take to report ready (it opens the database and loads the model). */
  readyTimeoutMs?: number;
  /** How long a stop may take before the process is killed. */
  stopGraceMs?: number;
  /** Restarts in a row before giving up; the count resets once the server has run `stableAfterMs`. */
  maxRestarts?: number;
  stableAfterMs?: number;
  backoff?: (attempt: number) => number;
  onState?: (state: SupervisorState) => void;
};

/** 1 s, 2 s, 4 s … capped at 30 s. */
export const defaultBackoff = (attempt: number): number => Math.min(30_000, 1_000 * 2 ** Math.max(0, attempt - 1));

export function isServerMessage(value: unknown): value is ServerMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  if (m.type === 'ready') return typeof m.url === 'string';
  if (m.type === 'failed') return typeof m.reason === 'string';
  return m.type === 'stopped';
}

const KILL_WAIT_MS = 5_000;

type Waiter = { resolve: (url: string) => void; reject: (error: Error) => void };

export class ServerSupervisor {
  private readonly options: Required<Omit<SupervisorOptions, 'onState'>> & Pick<SupervisorOptions, 'onState'>;
  private current: ServerHandle | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  private stateValue: SupervisorState = { status: 'idle' };
  private restarts = 0;
  private timer: NodeJS.Timeout | null = null;
  private stableTimer: NodeJS.Timeout | null = null;
  private waiters: Waiter[] = [];
  private stopping: Promise<void> | null = null;
  /** Set when the ready timeout killed the process, so its exit reports the timeout, not a crash. */
  private timeoutReason: string | null = null;

  constructor(options: SupervisorOptions) {
    this.options = {
      readyTimeoutMs: 60_000,
      stopGraceMs: 15_000,
      maxRestarts: 5,
      stableAfterMs: 60_000,
      backoff: defaultBackoff,
      ...options,
    };
  }

  get state(): SupervisorState {
    return this.stateValue;
  }

  /** Starts the server; resolves with its URL once ready, rejects when it cannot be started. */
  start(): Promise<string> {
    if (this.stopping) return Promise.reject(new Error('The server is stopping.'));
    const state = this.stateValue;
    if (state.status === 'idle' || state.status === 'failed') {
      this.restarts = 0;
      this.launch(1);
    }
    return this.whenReady();
  }

  /** Resolves with the URL the next time the server is running (at once if it is). */
  whenReady(): Promise<string> {
    const state = this.stateValue;
    if (state.status === 'running') return Promise.resolve(state.url);
    if (state.status === 'failed') return Promise.reject(new Error(state.reason));
    if (this.stopping || state.status === 'idle') return Promise.reject(new Error('The server is not running.'));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * Asks the server to stop (it closes HTTP, lets the workers finish their batches and closes the
   * database), waits for it to exit, and kills it only if the grace period runs out.
   */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    this.clearTimers();
    this.setState({ status: 'stopping' });
    this.rejectWaiters(new Error('The server was stopped.'));
    const handle = this.current;
    if (handle) {
      try {
        handle.postMessage({ type: 'stop' });
      } catch {
        // Already gone: the exit below resolves at once.
      }
      if ((await this.exitWithin(this.options.stopGraceMs)) === 'timeout') {
        handle.kill();
        // Never hold the app's quit forever, even if the exit is not reported.
        await this.exitWithin(KILL_WAIT_MS);
      }
    }
    this.current = null;
    this.setState({ status: 'stopped' });
  }

  private async exitWithin(ms: number): Promise<number | null | 'timeout'> {
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms);
    });
    try {
      return await Promise.race([this.exited, outOfTime]);
    } finally {
      clearTimeout(timer);
    }
  }

  private launch(attempt: number): void {
    this.setState({ status: 'starting', attempt });
    let handle: ServerHandle;
    try {
      handle = this.options.spawn();
    } catch (error) {
      this.fail(`The server process could not be started: ${(error as Error).message}`);
      return;
    }
    this.current = handle;
    let lastFailure: string | null = null;
    let ready = false;
    this.exited = new Promise((resolve) => {
      handle.on('exit', (code) => {
        resolve(code);
        if (this.current !== handle) return;
        this.clearTimers();
        this.current = null;
        if (this.stopping) return;
        if (lastFailure) {
          // The server said why it cannot start (port taken, keychain locked …): a restart would
          // fail the same way, so the reason goes to the user instead.
          this.fail(lastFailure);
        } else {
          this.scheduleRestart(ready ? `The server stopped unexpectedly (exit code ${code}).` : `The server exited while starting (exit code ${code}).`);
        }
      });
    });
    handle.on('message', (raw) => {
      if (this.current !== handle || this.stopping) return;
      const message = isServerMessage(raw) ? raw : null;
      if (message?.type === 'ready' && !ready) {
        ready = true;
        this.clearTimers();
        this.stableTimer = setTimeout(() => {
          this.restarts = 0;
        }, this.options.stableAfterMs);
        this.setState({ status: 'running', url: message.url });
        const waiters = this.waiters.splice(0);
        for (const waiter of waiters) waiter.resolve(message.url);
      } else if (message?.type === 'failed') {
        lastFailure = message.reason;
      }
    });
    this.timer = setTimeout(() => {
      if (this.current !== handle || ready) return;
      // A server that never answers is killed; its exit schedules the restart.
      this.timeoutReason = `The server did not become ready within ${this.options.readyTimeoutMs / 1000} s.`;
      handle.kill();
    }, this.options.readyTimeoutMs);
  }

  private scheduleRestart(reason: string): void {
    const why = this.timeoutReason ?? reason;
    this.timeoutReason = null;
    if (this.restarts >= this.options.maxRestarts) {
      this.fail(`${why} It was restarted ${this.restarts} times without success.`);
      return;
    }
    this.restarts += 1;
    const delayMs = this.options.backoff(this.restarts);
    this.setState({ status: 'restarting', reason: why, attempt: this.restarts, delayMs });
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopping) this.launch(this.restarts + 1);
    }, delayMs);
  }

  private fail(reason: string): void {
    this.timeoutReason = null;
    this.setState({ status: 'failed', reason });
    this.rejectWaiters(new Error(reason));
  }

  private rejectWaiters(error: Error): void {
    const waiters = this.waiters.splice(0);
    for (const waiter of waiters) waiter.reject(error);
  }

  private clearTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.stableTimer) clearTimeout(this.stableTimer);
    this.timer = null;
    this.stableTimer = null;
  }

  private setState(state: SupervisorState): void {
    this.stateValue = state;
    this.options.onState?.(state);
  }
}
