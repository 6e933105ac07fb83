import { setImmediate as nextTurn } from 'node:timers/promises';

/** Where a pass over the finished jobs has got to: the last job read, in finishing order. */
export type HistoryPosition = { finishedAt: number; id: number };

/** The finished jobs, oldest finished first (storage/job-history.ts). */
export type JobHistoryStore = {
  /**
   * Reads up to `limit` jobs finished before `cutoff`, after `from`, and removes those a newer job
   * of their item supersedes (an item's newest job always stays). `next` is where the next page
   * starts; null when there is none.
   */
  prune(cutoff: number, from: HistoryPosition | null, limit: number): { removed: number; next: HistoryPosition | null };
};

const DAY_MS = 24 * 60 * 60_000;
/** How often a pass runs while the server is up (one also runs at start-up). */
const PASS_EVERY_MS = 60 * 60_000;
/** Jobs read per transaction; the event loop turns between pages. */
export const HISTORY_PAGE = 200;

/**
 * Keeps the job history to a number of days (`LOCALIQ_JOB_HISTORY_DAYS`, 0 keeps everything):
 * a pass at start-up and every hour removes what the job history allows, a page per turn of the
 * event loop, so requests keep being answered during a long first pass.
 */
export class JobHistoryRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly history: JobHistoryStore,
    private readonly days: number,
    private readonly onPass: (removed: number) => void = () => {},
    private readonly clock: () => number = Date.now,
  ) {}

  start(): void {
    if (this.days === 0 || this.timer) return;
    void this.pass();
    this.timer = setInterval(() => void this.pass(), PASS_EVERY_MS);
    this.timer.unref();
  }

  /** Removes the jobs the history allows; resolves with how many (the pass under way, if any). */
  pass(): Promise<number> {
    this.running ??= this.removeOld().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Stops the timer and waits for a pass under way to end at its next page. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async removeOld(): Promise<number> {
    if (this.days === 0) return 0;
    const cutoff = this.clock() - this.days * DAY_MS;
    let removed = 0;
    let from: HistoryPosition | null = null;
    do {
      const page = this.history.prune(cutoff, from, HISTORY_PAGE);
      removed += page.removed;
      from = page.next;
      if (from) await nextTurn();
    } while (from && !this.stopped);
    if (removed > 0) this.onPass(removed);
    return removed;
  }
}
