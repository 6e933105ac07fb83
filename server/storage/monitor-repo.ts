import type { ItemIdentity, Job } from '../domain/job-record.ts';
import type { MonitorStore } from '../domain/monitor.ts';
import type { Db } from './db.ts';
import { type JobRow, toJob } from './jobs/job-row.ts';
import { NOT_QUEUED } from './jobs/sql.ts';

/**
 * The dashboard's live view of the queue. Every read is bounded by what it shows, not by the
 * size of the job table: counts come from job_counts (kept as jobs change, migration 9), rows from
 * short index ranges (bench/queue-scale.ts).
 */
export class MonitorRepo implements MonitorStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      queuedByPriority: db.prepare<[], { priority: number; n: number }>(
        "SELECT priority, sum(n) AS n FROM job_counts WHERE status = 'queued' GROUP BY priority",
      ),
      running: db.prepare<[], { n: number }>("SELECT coalesce(sum(n), 0) AS n FROM job_counts WHERE status = 'processing'"),
      processing: db.prepare<[number], JobRow>(
        `SELECT * FROM jobs WHERE status = 'processing' AND ${NOT_QUEUED} ORDER BY started_at, id LIMIT ?`,
      ),
      oldestRunning: db.prepare<[], { t: number | null }>(
        `SELECT min(enqueued_at) AS t FROM jobs WHERE status = 'processing' AND ${NOT_QUEUED}`,
      ),
      // The job next in line at a priority, and when it was really pushed: a bulk's later jobs
      // arrive later in claim order than they were pushed (domain/fair-queue.ts).
      firstQueuedOfPriority: db.prepare<[number], { enqueued_at: number }>(
        `SELECT enqueued_at FROM jobs INDEXED BY jobs_claim_order WHERE status = 'queued' AND priority = ?
         ORDER BY sort_key LIMIT 1`,
      ),
      // Only finished jobs have a finished_at (a retry clears it), so the index alone counts them.
      finishedSince: db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM jobs WHERE finished_at >= ?'),
      latestFinished: db.prepare<[number, number], JobRow>(
        'SELECT * FROM jobs WHERE finished_at >= ? ORDER BY finished_at DESC, id DESC LIMIT ?',
      ),
      latestPushed: db.prepare<[number, number], JobRow>(
        'SELECT * FROM (SELECT * FROM jobs ORDER BY id DESC LIMIT ?) WHERE updated_at >= ?',
      ),
      itemJobs: db.prepare<[string, string, string, number], JobRow>(
        `SELECT * FROM jobs WHERE knowledge_base_id = ? AND integration_id = ? AND external_id = ?
         ORDER BY id DESC LIMIT ?`,
      ),
      lastChange: db.prepare<[], { counts: string | null; last: number | null }>(
        `SELECT (SELECT group_concat(knowledge_base_id || '/' || status || '/' || priority || '=' || n, ',')
                   FROM job_counts) AS counts,
                (SELECT max(id) FROM jobs) AS last`,
      ),
    };
  }

  queuedByPriority(): Map<number, number> {
    return new Map(this.stmts.queuedByPriority.all().map((r) => [r.priority, r.n]));
  }

  processing(limit: number): Job[] {
    return this.stmts.processing.all(limit).map(toJob);
  }

  /**
   * The current run of work: jobs still waiting or running, and the jobs finished since the
   * oldest of those was queued.
   */
  progress(queuedByPriority: Map<number, number> = this.queuedByPriority()): { pending: number; done: number } {
    let pending = this.stmts.running.get()!.n;
    const since: number[] = [];
    const running = this.stmts.oldestRunning.get()!.t;
    if (running !== null) since.push(running);
    for (const [priority, queued] of queuedByPriority) {
      if (queued === 0) continue; // Looking for a priority nobody waits at would walk the whole queue.
      pending += queued;
      const first = this.stmts.firstQueuedOfPriority.get(priority);
      if (first) since.push(first.enqueued_at);
    }
    const done = since.length === 0 ? 0 : this.stmts.finishedSince.get(Math.min(...since))!.n;
    return { pending, done };
  }

  /**
   * What happened since `since`, latest first: jobs pushed, started and finished. (A re-push that
   * replaces a queued job's payload, or a failed attempt going back to the queue, does not show.)
   */
  recent(since: number, limit: number): Job[] {
    const byId = new Map<number, JobRow>();
    for (const row of [
      ...this.stmts.latestFinished.all(since, limit),
      ...this.stmts.processing.all(limit).filter((row) => row.updated_at >= since),
      ...this.stmts.latestPushed.all(limit, since),
    ]) {
      byId.set(row.id, row);
    }
    return [...byId.values()]
      .sort((a, b) => b.updated_at - a.updated_at || b.id - a.id)
      .slice(0, limit)
      .map(toJob);
  }

  /** An item's job history, newest first. */
  itemJobs(identity: ItemIdentity, limit: number): Job[] {
    return this.stmts.itemJobs.all(identity.knowledgeBaseId, identity.integrationId, identity.externalId, limit).map(toJob);
  }

  /**
   * A cheap fingerprint of the job table: the counts by knowledge base, state and priority, and
   * the newest job. Any push or change of state moves it; when it is unchanged, there is nothing
   * to send (a re-push of a queued job's payload announces itself: the queue notifies the monitor).
   */
  fingerprint(): string {
    const row = this.stmts.lastChange.get()!;
    return `${row.counts ?? ''}:${row.last ?? 0}`;
  }
}
