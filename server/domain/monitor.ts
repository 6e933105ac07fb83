import type { JobStatus, PriorityName } from '../../common/contract/jobs.ts';
import type { Job } from './job-record.ts';
import { PRIORITY_LEVELS } from './jobs.ts';
import type { JobQueue } from './job-queue.ts';
import type { ThroughputMeter } from './throughput.ts';

/** The monitor's reads of the job table (storage/monitor-repo.ts). Priorities are levels (jobs.ts). */
export type MonitorStore = {
  queuedByPriority(): Map<number, number>;
  /** The jobs running now, the longest running first. */
  processing(limit: number): Job[];
  /** The current run of work: jobs waiting or running, and jobs finished since it began. */
  progress(queuedByPriority: Map<number, number>): { pending: number; done: number };
  /** Jobs pushed, started or finished since `since`, latest first. */
  recent(since: number, limit: number): Job[];
  /** Changes whenever any job is pushed or changes state. */
  fingerprint(): string;
};

/** The queue at one moment, as the dashboard's monitor shows it. Times in milliseconds since the epoch. */
export type MonitorState = {
  at: number;
  counts: Record<JobStatus, number>;
  queuedByPriority: Record<PriorityName, number>;
  processing: Array<{ job: Job; runningMs: number }>;
  progress: { pending: number; done: number };
  jobsPerSecond: number;
  etaSeconds: number | null;
  failures: Job[];
  recent: Job[];
};

type Listener = (state: MonitorState) => void;

/** Messages to live viewers are coalesced: at most one per this interval, however busy the queue. */
const MONITOR_MIN_INTERVAL_MS = 400;
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
    private readonly repo: MonitorStore,
    private readonly queue: JobQueue,
    private readonly throughput: ThroughputMeter,
    private readonly clock: () => number = Date.now,
  ) {}

  snapshot(): MonitorState {
    const now = this.clock();
    const counts = this.queue.counts();
    const byPriority = this.repo.queuedByPriority();
    const progress = this.repo.progress(byPriority);
    const rate = this.throughput.jobsPerSecond();
    return {
      at: now,
      counts,
      queuedByPriority: {
        high: byPriority.get(PRIORITY_LEVELS.high) ?? 0,
        normal: byPriority.get(PRIORITY_LEVELS.normal) ?? 0,
        low: byPriority.get(PRIORITY_LEVELS.low) ?? 0,
      },
      processing: this.repo.processing(20).map((job) => ({ job, runningMs: now - (job.startedAt ?? now) })),
      progress,
      jobsPerSecond: Math.round(rate * 100) / 100,
      etaSeconds: progress.pending === 0 ? 0 : rate > 0 ? Math.ceil(progress.pending / rate) : null,
      failures: this.queue.list({ status: 'failed' }, 20, undefined).rows,
      recent: this.repo.recent(now - 10 * 60_000, 15),
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
      // A read that fails (the database busy past its timeout) is tried again on the next tick.
      const fingerprint = readOrNull(() => this.repo.fingerprint());
      if (fingerprint !== null && fingerprint !== this.lastFingerprint) this.notify();
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
    // Runs on a timer: a read that fails must not end the server; the next change sends again.
    const read = readOrNull(() => ({ fingerprint: this.repo.fingerprint(), state: this.snapshot() }));
    if (!read) return;
    this.lastSentAt = this.clock();
    this.lastFingerprint = read.fingerprint;
    const { state } = read;
    for (const listener of this.listeners) {
      try {
        listener(state);
      } catch {
        // A viewer whose connection broke is removed by its own close handler.
      }
    }
  }
}

function readOrNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}
