import type { MonitorSnapshot } from '../../common/contract/admin.ts';
import { toJobView } from '../storage/job-repo.ts';
import type { MonitorRepo } from '../storage/monitor-repo.ts';
import type { JobQueue } from './job-queue.ts';
import type { ThroughputMeter } from './throughput.ts';

type Listener = (snapshot: MonitorSnapshot) => void;

/** Messages to live viewers are coalesced: at most one per this interval, however busy the queue. */
export const MONITOR_MIN_INTERVAL_MS = 400;
/** Workers claim jobs without telling the main thread; while someone watches, look this often. */
const WATCH_INTERVAL_MS = 1_500;

/**
 * The ingestion monitor: snapshots of the queue for the dashboard, pushed to live viewers when
 * something changes (a push, a finished batch, a retry), coalesced so a bulk import does not
 * flood the browser. Nothing runs while nobody watches.
 */
export class MonitorService {
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | null = null;
  private watcher: NodeJS.Timeout | null = null;
  private lastSentAt = 0;
  private lastFingerprint = '';

  constructor(
    private readonly repo: MonitorRepo,
    private readonly queue: JobQueue,
    private readonly throughput: ThroughputMeter,
    private readonly clock: () => number = Date.now,
  ) {}

  snapshot(): MonitorSnapshot {
    const now = this.clock();
    const counts = this.queue.counts();
    const byPriority = this.repo.queuedByPriority();
    const progress = this.repo.progress(byPriority);
    const rate = this.throughput.jobsPerSecond();
    return {
      at: new Date(now).toISOString(),
      counts,
      queuedByPriority: { high: byPriority.get(0) ?? 0, normal: byPriority.get(1) ?? 0, low: byPriority.get(2) ?? 0 },
      processing: this.repo.processing(20).map((row) => ({ ...toJobView(row), runningMs: now - (row.started_at ?? now) })),
      progress,
      jobsPerSecond: Math.round(rate * 100) / 100,
      etaSeconds: progress.pending === 0 ? 0 : rate > 0 ? Math.ceil(progress.pending / rate) : null,
      failures: this.queue.list({ status: 'failed' }, 20, undefined).rows.map(toJobView),
      recent: this.repo.recent(now - 10 * 60_000, 15).map(toJobView),
    };
  }

  /** Something changed: viewers get a snapshot soon (coalesced). */
  notify(): void {
    if (this.listeners.size === 0 || this.timer) return;
    const wait = Math.max(0, this.lastSentAt + MONITOR_MIN_INTERVAL_MS - this.clock());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.broadcast();
    }, wait);
    this.timer.unref();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    listener(this.snapshot());
    this.watcher ??= setInterval(() => {
      const fingerprint = this.repo.fingerprint();
      if (fingerprint !== this.lastFingerprint) this.notify();
    }, WATCH_INTERVAL_MS);
    this.watcher.unref();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.watcher) clearInterval(this.watcher);
    this.timer = null;
    this.watcher = null;
  }

  private broadcast(): void {
    if (this.listeners.size === 0) return;
    this.lastSentAt = this.clock();
    this.lastFingerprint = this.repo.fingerprint();
    const snapshot = this.snapshot();
    for (const listener of this.listeners) {
      try {
        listener(snapshot);
      } catch {
        // A viewer whose connection broke is removed by its own close handler.
      }
    }
  }
}
