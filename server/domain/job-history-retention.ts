import { PagedRetention } from './paged-retention.ts';

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
 * event loop (PagedRetention).
 */
export class JobHistoryRetention extends PagedRetention {
  constructor(
    history: JobHistoryStore,
    days: number,
    onPass: (removed: number) => void = () => {},
    clock: () => number = Date.now,
  ) {
    super({
      name: 'job-history-retention',
      intervalMs: PASS_EVERY_MS,
      onPass,
      begin: () => {
        if (days === 0) return null;
        const cutoff = clock() - days * DAY_MS;
        let from: HistoryPosition | null = null;
        return () => {
          const page = history.prune(cutoff, from, HISTORY_PAGE);
          from = page.next;
          return { removed: page.removed, more: from !== null };
        };
      },
    });
  }
}
