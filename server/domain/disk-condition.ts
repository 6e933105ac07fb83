import fs from 'node:fs';
import type { DiskConditionView } from '../../common/contract/admin.ts';

/** What SQLite and the file system say when the disk is full. */
const DISK_FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC']);

export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DISK_FULL_CODES.has(code);
}

/** Waits between a worker's tries while the disk is full: 1 s, doubling up to a minute. */
const FIRST_DISK_WAIT_MS = 1_000;
const LONGEST_DISK_WAIT_MS = 60_000;

/** The next wait after `previousMs` (0: the disk was not full at the last try). */
export function nextDiskFullWait(previousMs: number): number {
  return Math.min(LONGEST_DISK_WAIT_MS, previousMs === 0 ? FIRST_DISK_WAIT_MS : previousMs * 2);
}

/** How long a refused push keeps the condition shown, when nothing else shows it. */
const SHOWN_AFTER_REFUSAL_MS = 60_000;

/**
 * Whether the disk under the data folder has filled up, as pushes and the pipeline find out
 * (SQLite answers SQLITE_FULL): the dashboard shows it on every screen until space returns.
 */
export class DiskCondition {
  private pausedSince: number | null = null;
  private refusedAt: number | null = null;

  constructor(
    private readonly dataDir: string,
    private readonly clock: () => number = Date.now,
  ) {}

  pushRefused(): void {
    this.refusedAt = this.clock();
  }

  /** True when this pauses processing (it was not paused already). */
  processingPaused(): boolean {
    if (this.pausedSince !== null) return false;
    this.pausedSince = this.clock();
    return true;
  }

  processingResumed(): void {
    this.pausedSince = null;
    this.refusedAt = null;
  }

  view(): DiskConditionView {
    const recentRefusal = this.refusedAt !== null && this.clock() - this.refusedAt < SHOWN_AFTER_REFUSAL_MS ? this.refusedAt : null;
    const since = this.pausedSince ?? recentRefusal;
    let freeBytes: number | null = null;
    try {
      const { bavail, bsize } = fs.statfsSync(this.dataDir);
      freeBytes = bavail * bsize;
    } catch {
      // No figure on a file system that cannot say; the condition itself still shows.
    }
    return {
      full: since !== null,
      since: since === null ? null : new Date(since).toISOString(),
      processingPaused: this.pausedSince !== null,
      freeBytes,
      message:
        since === null
          ? null
          : `The disk that holds the data folder (${this.dataDir}) is full: pushes are refused with 507 and processing is paused. Free space on that disk; LocalIQ carries on by itself once there is room.`,
    };
  }
}
