import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PruneResult } from './visitor-conversations.ts';

/** A pass a day keeps conversations within a day of their retention period. */
const PASS_EVERY_MS = 24 * 60 * 60_000;
/** Sessions (with their turns) removed per transaction; the event loop turns between pages. */
export const VISITOR_PRUNE_PAGE = 200;

/**
 * Removes conversations (visitors' and the dashboard's: Conversations.pruneExpired) older than the
 * retention period (VisitorConversations' setting, read at each pass): one pass at start-up and one a day, a page per turn of the event
 * loop, so visitors' questions keep being answered during a long first pass.
 */
export class VisitorRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly conversations: { pruneExpired(limit: number): PruneResult },
    /** Hears how many conversations a pass removed, when it removed any. */
    private readonly onPass: (removed: number) => void = () => {},
  ) {}

  start(): void {
    if (this.timer) return;
    void this.pass();
    this.timer = setInterval(() => void this.pass(), PASS_EVERY_MS);
    this.timer.unref();
  }

  /** Removes what is past the period; resolves with how many conversations went (the pass under way, if any). */
  pass(): Promise<number> {
    this.running ??= this.removeOld().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async removeOld(): Promise<number> {
    let removed = 0;
    for (;;) {
      const page = this.conversations.pruneExpired(VISITOR_PRUNE_PAGE);
      removed += page.sessions;
      if ((page.sessions < VISITOR_PRUNE_PAGE && page.turns < VISITOR_PRUNE_PAGE) || this.stopped) break;
      await nextTurn();
    }
    if (removed > 0) this.onPass(removed);
    return removed;
  }
}
