import type { IngestItem } from '../../common/contract/ingest.ts';
import type { JobStatus } from '../../common/contract/jobs.ts';
import type { EnqueueOptions, EnqueueResult, ItemIdentity, JobFilter, JobRepo, JobRow, PushInput } from '../storage/job-repo.ts';
import { CommitBatcher, type Settled } from './commit-batcher.ts';
import { decodeCursor, paginate } from './cursor.ts';
import { formatEstimate } from './jobs.ts';
import type { ThroughputMeter } from './throughput.ts';

export type PushResult = { jobIds: string[]; jobCount: number; lastSortKey: number };

/** Writes pushed jobs; resolves once they are committed and on disk, with one outcome per push. */
export type JobWriter = {
  /** Gets the writer ready, so the first push does not wait for it. */
  start?(): Promise<void>;
  write(pushes: PushInput[], options: EnqueueOptions): Promise<Array<Settled<EnqueueResult>>>;
};

export type JobLookup =
  | { found: 'one'; job: JobRow }
  | { found: 'none' }
  | { found: 'many'; candidates: ItemIdentity[] };

/** The queue's rules on top of the job table: pushing, finding, listing, retrying. */
export class JobQueue {
  private readonly batcher: CommitBatcher<PushInput, PushResult>;
  private aheadCount = { second: -1, at: 0, count: 0 };
  private pushedSinceCount = 0;

  constructor(
    private readonly repo: JobRepo,
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
  async push(items: IngestItem[], apiKeyId: string | null): Promise<PushResult> {
    const result = await this.batcher.submit({ items, apiKeyId });
    this.pushedSinceCount += result.jobCount;
    this.pushed();
    return result;
  }

  /** `estimatedTime` for pushed jobs: the queued work up to and including them at the measured rate. */
  estimate(pushed: PushResult): string {
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
    const rows = this.repo
      .latestForJobId(jobId)
      .filter((row) => !allowedKnowledgeBaseIds || allowedKnowledgeBaseIds.includes(row.knowledge_base_id))
      .filter((row) => !narrow.knowledgeBaseId || row.knowledge_base_id === narrow.knowledgeBaseId)
      .filter((row) => !narrow.integrationId || row.integration_id === narrow.integrationId);
    if (rows.length === 0) return { found: 'none' };
    if (rows.length === 1) return { found: 'one', job: rows[0]! };
    return {
      found: 'many',
      candidates: rows.map((r) => ({
        knowledgeBaseId: r.knowledge_base_id,
        integrationId: r.integration_id,
        externalId: r.external_id,
      })),
    };
  }

  list(filter: JobFilter, limit: number, cursor: string | undefined): { rows: JobRow[]; nextCursor: string | null } {
    const beforeId = cursor === undefined ? null : decodeCursor(cursor);
    return paginate(this.repo.list(filter, limit + 1, beforeId), limit);
  }

  /** Requeues a failed job; refused when it is not failed or a newer version is already queued. */
  retry(job: JobRow): 'retried' | 'not_failed' | 'newer_queued' {
    if (job.status !== 'failed') return 'not_failed';
    try {
      if (!this.repo.retry(job.id, this.clock())) return 'not_failed';
      this.pushed();
      return 'retried';
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return 'newer_queued';
      throw error;
    }
  }

  get(id: number): JobRow | null {
    return this.repo.get(id);
  }

  counts(): Record<JobStatus, number> {
    return this.repo.countByStatus();
  }
}
