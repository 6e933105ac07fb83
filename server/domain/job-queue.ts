import type { IngestItem } from '../../common/contract/ingest.ts';
import type { JobStatus } from '../../common/contract/jobs.ts';
import { CommitBatcher, type Settled } from './commit-batcher.ts';
import { decodeCursor, paginate } from './cursor.ts';
import { DuplicateError } from './errors.ts';
import type { ItemIdentity, Job } from './job-record.ts';
import { formatEstimate } from './jobs.ts';
import type { ThroughputMeter } from './throughput.ts';

/** One push: its items, and the API key that pushed them (null from the dashboard). */
export type PushInput = { items: IngestItem[]; apiKeyId: string | null };

export type EnqueueOptions = {
  now: number;
  maxAttempts: number;
  /** The embedding model of the index; unchanged items it already holds are skipped at once. */
  activeModelId: string | null;
  /**
   * Milliseconds the pipeline needs per unit of jobCost at its measured rate: each lane's jobs
   * arrive that far apart (fair-queue.ts). Absent or 0, every job arrives when pushed.
   */
  msPerCost?: number;
};

export type EnqueueResult = {
  jobIds: string[];
  /** Distinct jobs touched (two items of one bulk with the same identity make one job). */
  jobCount: number;
  /** Largest claim-order key among these jobs, to count the work queued ahead of them. */
  lastSortKey: number;
};

export type JobFilter = {
  status?: JobStatus | undefined;
  knowledgeBaseId?: string | undefined;
  integrationId?: string | undefined;
  /** Only these knowledge bases (a restricted API key); null means all. */
  allowedKnowledgeBaseIds?: string[] | null | undefined;
};

/** What the queue reads and changes in the job table (storage/jobs/job-repo.ts). */
export type JobStore = {
  /** How many queued jobs have a claim key up to `key`. */
  countQueuedUpTo(key: number): number;
  countByStatus(): Record<JobStatus, number>;
  /** The latest job of every item whose seed jobId is this string (several when ids contain hyphens). */
  latestForJobId(jobId: string): Job[];
  /** Newest first, from before the job with the internal id `beforeId` (null: from the newest). */
  list(filter: JobFilter, limit: number, beforeId: number | null): Job[];
  get(id: number): Job | null;
  /**
   * Puts a failed job back in the queue with fresh attempts; false if it is not failed. Throws a
   * DuplicateError when its item already has a queued job.
   */
  retry(id: number, now: number): boolean;
};

/** Writes pushed jobs; resolves once they are committed and on disk, with one outcome per push. */
export type JobWriter = {
  /** Gets the writer ready, so the first push does not wait for it. */
  start?(): Promise<void>;
  write(pushes: PushInput[], options: EnqueueOptions): Promise<Array<Settled<EnqueueResult>>>;
};

export type JobLookup =
  | { found: 'one'; job: Job }
  | { found: 'none' }
  | { found: 'many'; candidates: ItemIdentity[] };

/** The queue's rules on top of the job table: pushing, finding, listing, retrying. */
export class JobQueue {
  private readonly batcher: CommitBatcher<PushInput, EnqueueResult>;
  private aheadCount = { second: -1, at: 0, count: 0 };
  private pushedSinceCount = 0;

  constructor(
    private readonly repo: JobStore,
    writer: JobWriter,
    private readonly throughput: ThroughputMeter,
    private readonly maxAttempts: number,
    private readonly activeModelId: () => string | null = () => null,
    private readonly clock: () => number = Date.now,
  ) {
    this.start = () => writer.start?.() ?? Promise.resolve();
    this.batcher = new CommitBatcher((pushes) =>
      writer.write(pushes, {
        now: this.clock(),
        maxAttempts: this.maxAttempts,
        activeModelId: this.activeModelId(),
        msPerCost: 1000 / this.throughput.costPerSecond(),
      }),
    );
  }

  /** Gets the writer ready before the first push (the server calls it before it listens). */
  readonly start: () => Promise<void>;

  private readonly pushedListeners = new Set<() => void>();

  /**
   * Calls `listener` after pushed or retried jobs are committed (the pipeline wakes its idle
   * workers, the live monitor tells its viewers); returns what unsubscribes it.
   */
  onPushed(listener: () => void): () => void {
    this.pushedListeners.add(listener);
    return () => {
      this.pushedListeners.delete(listener);
    };
  }

  private pushed(): void {
    for (const listener of this.pushedListeners) listener();
  }

  /** Resolves once the jobs are committed to disk (together with other pushes of the same moment). */
  async push(items: IngestItem[], apiKeyId: string | null): Promise<EnqueueResult> {
    const result = await this.batcher.submit({ items, apiKeyId });
    this.pushedSinceCount += result.jobCount;
    this.pushed();
    return result;
  }

  /** `estimatedTime` for pushed jobs: the queued work up to and including them at the measured rate. */
  estimate(pushed: EnqueueResult): string {
    return formatEstimate(this.queuedUpTo(pushed.lastSortKey), this.throughput.jobsPerSecond());
  }

  /**
   * Counting the queue ahead scans it, which under heavy pushing cost as much as the push itself;
   * pushes whose claim keys fall in the same second share one count, taken at most a second ago,
   * plus the jobs pushed since (jobs finished meanwhile are not subtracted: the estimate errs long).
   */
  private queuedUpTo(sortKey: number): number {
    const now = this.clock();
    const second = Math.floor(sortKey / 1000);
    if (this.aheadCount.second !== second || now - this.aheadCount.at > 1000) {
      this.aheadCount = { second, at: now, count: this.repo.countQueuedUpTo(second * 1000 + 999) };
    } else {
      this.aheadCount.count += this.pushedSinceCount;
    }
    this.pushedSinceCount = 0;
    return this.aheadCount.count;
  }

  /**
   * Finds the latest job for a seed jobId. Hyphens make `a-b`+`c` and `a`+`b-c` the same string,
   * and the same ids may exist in several knowledge bases: such look-alikes are never merged;
   * the caller narrows with knowledgeBaseId / integrationId.
   */
  find(jobId: string, narrow: Partial<ItemIdentity>, allowedKnowledgeBaseIds: string[] | null): JobLookup {
    const jobs = this.repo
      .latestForJobId(jobId)
      .filter((job) => !allowedKnowledgeBaseIds || allowedKnowledgeBaseIds.includes(job.knowledgeBaseId))
      .filter((job) => !narrow.knowledgeBaseId || job.knowledgeBaseId === narrow.knowledgeBaseId)
      .filter((job) => !narrow.integrationId || job.integrationId === narrow.integrationId);
    if (jobs.length === 0) return { found: 'none' };
    if (jobs.length === 1) return { found: 'one', job: jobs[0]! };
    return {
      found: 'many',
      candidates: jobs.map((job) => ({
        knowledgeBaseId: job.knowledgeBaseId,
        integrationId: job.integrationId,
        externalId: job.externalId,
      })),
    };
  }

  list(filter: JobFilter, limit: number, cursor: string | undefined): { rows: Job[]; nextCursor: string | null } {
    const beforeId = cursor === undefined ? null : decodeCursor(cursor);
    return paginate(this.repo.list(filter, limit + 1, beforeId), limit);
  }

  /** Requeues a failed job; refused when it is not failed or a newer version is already queued. */
  retry(job: Job): 'retried' | 'not_failed' | 'newer_queued' {
    if (job.status !== 'failed') return 'not_failed';
    try {
      if (!this.repo.retry(job.id, this.clock())) return 'not_failed';
      this.pushed();
      return 'retried';
    } catch (error) {
      if (error instanceof DuplicateError) return 'newer_queued';
      throw error;
    }
  }

  get(id: number): Job | null {
    return this.repo.get(id);
  }

  counts(): Record<JobStatus, number> {
    return this.repo.countByStatus();
  }
}
