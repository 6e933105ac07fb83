/**
 * Work the server does on a clock, beside the requests it answers: retentions, webhook deliveries,
 * question grouping, scheduled backups, website syncs, following the indexes. Each is one
 * `BackgroundPass`, listed once where the services are composed (server/background-passes.ts) and
 * run by one `PassRunner`, so every pass has the same rules: runs of one pass never overlap, a
 * failing run is logged (once per streak of failures) and the pass runs again at its next tick,
 * and stopping the server awaits a run under way.
 */
export type BackgroundPass = {
  /** Names the pass in logs ("job-history-retention"). */
  name: string;
  /** Time between the starts of two runs. */
  intervalMs: number;
  /** Runs once as the runner starts, without waiting a first interval (retentions catch up at start-up). */
  runAtStart?: boolean;
  /** One run. A throw or a rejection is logged and the next tick runs again. */
  run(): unknown;
  /** Asks work under way to end soon (a backup, syncs, the pages of a retention); called once on stopping. */
  stop?(): unknown;
  /** Writes or finishes what the pass holds, after its last run ended (deliveries in flight, say). */
  flush?(): unknown;
};

/** What the runner tells: a pass that failed (the first failure of a streak), and one that works again. */
export type PassLog = {
  failed(pass: string, error: unknown): void;
  recovered?(pass: string, failedRuns: number): void;
};

/**
 * Counts a streak of failures of something retried on a clock, so that it is logged once, not once
 * a second, while the database stays busy: `failed` says whether this failure starts a streak.
 */
export class FailureStreak {
  private failures = 0;

  /** True for the first failure of a streak (the one to log). */
  failed(): boolean {
    this.failures += 1;
    return this.failures === 1;
  }

  /** Ends a streak; returns how many runs it lasted (0: there was none). */
  succeeded(): number {
    const failures = this.failures;
    this.failures = 0;
    return failures;
  }
}

type Running = {
  pass: BackgroundPass;
  timer: NodeJS.Timeout | null;
  run: Promise<void> | null;
  streak: FailureStreak;
};

/** Starts, ticks and stops a list of background passes (see BackgroundPass). */
export class PassRunner {
  private readonly passes: Running[];
  private started = false;
  private stopping: Promise<void> | null = null;

  constructor(
    passes: readonly BackgroundPass[],
    private readonly log: PassLog,
  ) {
    const names = new Set<string>();
    for (const pass of passes) {
      if (names.has(pass.name)) throw new Error(`two background passes are named ${pass.name}`);
      if (!(pass.intervalMs > 0)) throw new RangeError(`the background pass ${pass.name} needs an interval above 0 ms`);
      names.add(pass.name);
    }
    this.passes = passes.map((pass) => ({ pass, timer: null, run: null, streak: new FailureStreak() }));
  }

  /** Starts every pass's clock (and the runs at start); a second call does nothing. */
  start(): void {
    if (this.started || this.stopping) return;
    this.started = true;
    for (const running of this.passes) {
      // Timers do not keep the process alive: a server is kept alive by its listener.
      running.timer = setInterval(() => void this.tick(running), running.pass.intervalMs).unref();
      if (running.pass.runAtStart) void this.tick(running);
    }
  }

  /**
   * Stops every clock, asks each pass to stop, awaits the runs under way, then lets each pass
   * flush. A pass whose stop or flush fails is logged; the others stop all the same.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    for (const running of this.passes) {
      if (running.timer) clearInterval(running.timer);
      running.timer = null;
    }
    await Promise.all(
      this.passes.map(async (running) => {
        await this.guarded(running, () => running.pass.stop?.());
        await running.run;
        await this.guarded(running, () => running.pass.flush?.());
      }),
    );
  }

  private tick(running: Running): Promise<void> {
    if (running.run) return running.run;
    if (this.stopping) return Promise.resolve();
    running.run = this.runOnce(running).finally(() => {
      running.run = null;
    });
    return running.run;
  }

  private async runOnce(running: Running): Promise<void> {
    const { pass, streak } = running;
    try {
      await pass.run();
    } catch (error) {
      if (streak.failed()) this.report(() => this.log.failed(pass.name, error));
      return;
    }
    const failedRuns = streak.succeeded();
    if (failedRuns > 0) this.report(() => this.log.recovered?.(pass.name, failedRuns));
  }

  private async guarded(running: Running, step: () => unknown): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.report(() => this.log.failed(running.pass.name, error));
    }
  }

  /** A log that throws must not end the server either. */
  private report(write: () => void): void {
    try {
      write();
    } catch {
      // Nothing left to tell it to.
    }
  }
}
