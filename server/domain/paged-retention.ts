import { setImmediate as nextTurn } from 'node:timers/promises';
import type { BackgroundPass } from './background-pass.ts';

/** One page of a retention pass: how many records went, and whether more may be left. */
export type RetentionPage = { removed: number; more: boolean };

export type PagedRetentionOptions = {
  name: string;
  intervalMs: number;
  /**
   * Starts one pass: returns what removes its next page (the cutoff is read here, once a pass),
   * or null when the retention keeps everything.
   */
  begin: () => (() => RetentionPage) | null;
  /** Hears how many records a pass removed, when it removed any. */
  onPass?: (removed: number) => void;
};

/**
 * A retention: a pass at start-up and one each interval removes what is past its period, a page
 * per transaction and a turn of the event loop between pages, so requests keep being answered
 * during a long first pass. One pass runs at a time; stopping ends a pass at its next page.
 * The job history's and the conversations' retentions are two of these (job-history-retention.ts,
 * visitor-retention.ts).
 */
export class PagedRetention implements BackgroundPass {
  readonly name: string;
  readonly intervalMs: number;
  readonly runAtStart = true;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(private readonly options: PagedRetentionOptions) {
    this.name = options.name;
    this.intervalMs = options.intervalMs;
  }

  /** Removes what is past the period; resolves with how many records went (the pass under way, if any). */
  pass(): Promise<number> {
    this.running ??= this.removeOld().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  run(): Promise<number> {
    return this.pass();
  }

  /** Ends a pass under way at its next page, and waits for it. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async removeOld(): Promise<number> {
    const nextPage = this.options.begin();
    if (!nextPage) return 0;
    let removed = 0;
    for (;;) {
      const page = nextPage();
      removed += page.removed;
      if (!page.more || this.stopped) break;
      await nextTurn();
    }
    if (removed > 0) this.options.onPass?.(removed);
    return removed;
  }
}
