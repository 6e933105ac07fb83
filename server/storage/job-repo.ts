import type { IngestItem } from '../../common/contract/ingest.ts';
import type { JobStatus, JobView } from '../../common/contract/jobs.ts';
import { PRIORITY_NAMES } from '../../common/contract/jobs.ts';
import { jobCost, LaneClock, laneOf } from '../domain/fair-queue.ts';
import { contentHash, arrivalOf, jobIdOf, jobIdSplits, PRIORITY_LEVELS, priorityLevel, sortKey } from '../domain/jobs.ts';
import type { Db } from './db.ts';
import { prepareNextItemSeq } from './item-seq.ts';

export type JobRow = {
  id: number;
  job_id: string;
  knowledge_base_id: string;
  integration_id: string;
  external_id: string;
  source_type: string;
  data: string;
  content_hash: string;
  force_refresh: number;
  priority: number;
  seq: number;
  enqueued_at: number;
  sort_key: number;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_at: number;
  locked_at: number | null;
  last_error: string | null;
  errors: string;
  api_key_id: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
};

export type ItemIdentity = { knowledgeBaseId: string; integrationId: string; externalId: string };

export type JobFilter = {
  status?: JobStatus | undefined;
  knowledgeBaseId?: string | undefined;
  integrationId?: string | undefined;
  /** Only these knowledge bases (a restricted API key); null means all. */
  allowedKnowledgeBaseIds?: string[] | null | undefined;
};

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

/**
 * The payload a settled job keeps, as an SQL literal. A job that succeeded, was skipped or was
 * cancelled never runs again and the item's content lives in the items table, so its payload is
 * dropped when it settles: a catalogue re-synced every day would otherwise store every payload
 * again each day. A failed job keeps its payload for a retry.
 */
export const SETTLED_DATA = "'{}'";

/**
 * The condition of the partial index jobs_by_status_not_queued (migration 9). SQLite uses that
 * index only for a query whose WHERE clause holds this condition word for word.
 */
export const NOT_QUEUED = "status <> 'queued'";

/** What one enqueue transaction gathers: knowledge bases it created, jobs it inserted. */
type BatchState = {
  createdKbs: Set<string>;
  inserted: Map<string, { knowledgeBaseId: string; status: JobStatus; priority: number; n: number }>;
};

function countInsert(inserted: BatchState['inserted'], knowledgeBaseId: string, status: JobStatus, priority: number): void {
  // State and priority first: neither holds a slash, so the key cannot be ambiguous.
  const key = `${status}/${priority}/${knowledgeBaseId}`;
  const entry = inserted.get(key);
  if (entry) entry.n++;
  else inserted.set(key, { knowledgeBaseId, status, priority, n: 1 });
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toJobView(row: JobRow): JobView {
  return {
    jobId: row.job_id,
    status: row.status,
    knowledgeBaseId: row.knowledge_base_id,
    integrationId: row.integration_id,
    externalId: row.external_id,
    sourceType: row.source_type as JobView['sourceType'],
    priority: PRIORITY_NAMES[row.priority] ?? 'normal',
    forceRefresh: row.force_refresh === 1,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    lastError: row.last_error,
    errors: JSON.parse(row.errors) as JobView['errors'],
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    runAt: iso(row.run_at)!,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

export class JobRepo {
  private readonly stmts;
  private readonly nextSeq: (count?: number) => number;
  /** Knowledge bases known to exist, so a push does not write their row again (filled after commit). */
  private readonly knownKnowledgeBases = new Set<string>();
  private readonly lanes = new LaneClock();

  constructor(private readonly db: Db) {
    this.nextSeq = prepareNextItemSeq(db);
    this.stmts = {
      ensureKnowledgeBase: db.prepare<[string, number]>(
        'INSERT INTO knowledge_bases (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING',
      ),
      // What a push needs to know about its item, in one lookup: its queued job, if any, and
      // otherwise whether the active model (the last parameter; NULL for none) has already indexed
      // this very content with no run under way, so the push can settle as skipped at once.
      itemState: db.prepare<
        [string, string, string, string, string | null],
        { queued_id: number | null; queued_key: number | null; queued_priority: number | null; unchanged: number }
      >(
        `SELECT q.id AS queued_id, q.sort_key AS queued_key, q.priority AS queued_priority,
           q.id IS NULL AND EXISTS (SELECT 1 FROM items i
             WHERE i.knowledge_base_id = k.kb AND i.integration_id = k.integ AND i.external_id = k.ext
               AND i.content_hash = k.hash AND i.embedder_id = k.model
               AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.knowledge_base_id = k.kb
                 AND j.integration_id = k.integ AND j.external_id = k.ext AND j.status = 'processing')) AS unchanged
         FROM (SELECT ? AS kb, ? AS integ, ? AS ext, ? AS hash, ? AS model) k
         LEFT JOIN jobs q ON q.knowledge_base_id = k.kb AND q.integration_id = k.integ
           AND q.external_id = k.ext AND q.status = 'queued'`,
      ),
      replaceQueued: db.prepare(
        `UPDATE jobs SET source_type = @sourceType, data = @data, content_hash = @contentHash,
           force_refresh = @forceRefresh, priority = @priority, seq = @seq, sort_key = @sortKey,
           attempts = 0, max_attempts = @maxAttempts, run_at = @now, last_error = NULL, errors = '[]',
           api_key_id = @apiKeyId, updated_at = @now
         WHERE id = @id`,
      ),
      // The common case of a push, with positional parameters: binding fourteen named values
      // from an object cost more than the rest of the statement's preparation.
      insertQueued: db.prepare<
        [string, string, string, string, string, string, string, number, number, number, number, number, number, number, string | null, number, number]
      >(
        `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data,
           content_hash, force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at,
           api_key_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)`,
      ),
      // Settled jobs keep no payload (SETTLED_DATA).
      insertSkipped: db.prepare<
        [string, string, string, string, string, string, number, number, number, number, number, number, number, string | null, number, number, number, number]
      >(
        `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data,
           content_hash, force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at,
           api_key_id, created_at, updated_at, started_at, finished_at)
         VALUES (?, ?, ?, ?, ?, ${SETTLED_DATA}, ?, ?, ?, ?, ?, ?, 'skipped', ?, ?, ?, ?, ?, ?, ?)`,
      ),
      // What the dropped insert trigger counted (migration 5): jobs settled as they were inserted,
      // added once per push and knowledge base.
      countSkipped: db.prepare<[{ now: number; apiKeyId: string | null; knowledgeBaseId: string; count: number }]>(
        `INSERT INTO usage_counts (hour, key_id, knowledge_base_id, route, metric, value)
         VALUES ((CAST(@now AS INTEGER) / 3600000) * 3600000, coalesce(@apiKeyId, ''), @knowledgeBaseId, '', 'jobs_skipped', @count)
         ON CONFLICT (hour, metric, key_id, knowledge_base_id, route) DO UPDATE SET value = value + excluded.value`,
      ),
      requeueAll: db.prepare<[{ now: number; maxAttempts: number; base: number; sortKey: number }]>(
        `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data, content_hash,
           force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at, created_at, updated_at)
         SELECT i.integration_id || '-' || i.external_id, i.knowledge_base_id, i.integration_id, i.external_id,
           i.source_type,
           json_patch('{}', json_object('title', i.title, 'content', i.content, 'url', i.url,
             'sourceData', json(i.source_data))),
           i.content_hash, 1, ${PRIORITY_LEVELS.low}, @base + row_number() OVER (ORDER BY i.id), @now, @sortKey,
           'queued', @maxAttempts, @now, @now, @now
         FROM items i
         WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.knowledge_base_id = i.knowledge_base_id
           AND j.integration_id = i.integration_id AND j.external_id = i.external_id
           AND j.status IN ('queued', 'processing'))`,
      ),
      // Jobs this repository inserts are counted here, in the same transaction; triggers count
      // every later change (migration 9: a trigger on every insert made bulk pushes a quarter slower).
      countInserted: db.prepare<[string, JobStatus, number, number]>(
        `INSERT INTO job_counts (knowledge_base_id, status, priority, n) VALUES (?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET n = n + excluded.n`,
      ),
      countInsertedAfter: db.prepare<[number]>(
        `INSERT INTO job_counts (knowledge_base_id, status, priority, n)
         SELECT knowledge_base_id, status, priority, count(*) FROM jobs WHERE id > ? GROUP BY 1, 2, 3
         ON CONFLICT DO UPDATE SET n = n + excluded.n`,
      ),
      lastId: db.prepare<[], { id: number }>('SELECT coalesce(max(id), 0) AS id FROM jobs'),
      latestForItem: db.prepare<[ItemIdentity], JobRow>(
        `SELECT * FROM jobs WHERE knowledge_base_id = @knowledgeBaseId AND integration_id = @integrationId
           AND external_id = @externalId ORDER BY id DESC LIMIT 1`,
      ),
      // Counted from the claim-order index alone: through the status index (the planner's own
      // choice) it read every queued row, on the event loop (bench/queue-scale.ts).
      countQueuedUpTo: db.prepare<[number], { n: number }>(
        "SELECT count(*) AS n FROM jobs INDEXED BY jobs_claim_order WHERE status = 'queued' AND sort_key <= ?",
      ),
      countByStatus: db.prepare<[], { status: JobStatus; n: number }>(
        'SELECT status, sum(n) AS n FROM job_counts GROUP BY status',
      ),
      byId: db.prepare<[number], JobRow>('SELECT * FROM jobs WHERE id = ?'),
      // The parameter is a JSON array of [integrationId, externalId] pairs (jobIdSplits).
      latestPerItemForJobId: db.prepare<[string], JobRow>(
        `SELECT * FROM jobs WHERE id IN (
           SELECT max(j.id) FROM json_each(?) s
           JOIN jobs j ON j.integration_id = s.value ->> 0 AND j.external_id = s.value ->> 1
           GROUP BY j.knowledge_base_id, j.integration_id, j.external_id)
         ORDER BY id DESC`,
      ),
      retry: db.prepare<[{ id: number; now: number }]>(
        `UPDATE jobs SET status = 'queued', attempts = 0, run_at = @now, updated_at = @now, finished_at = NULL,
           locked_at = NULL
         WHERE id = @id AND status = 'failed'`,
      ),
    };
  }

  /**
   * Queues several pushes in one IMMEDIATE transaction (one disk sync for all of them): when this
   * returns, every job is on disk. Items are applied in order, so the later of two items with one
   * identity wins.
   */
  enqueue(pushes: PushInput[], opts: EnqueueOptions): EnqueueResult[] {
    const batch: BatchState = { createdKbs: new Set(), inserted: new Map() };
    const results = this.db
      .transaction(() => {
        // One reservation of sequence numbers for the whole batch, handed out in order.
        let seq = this.nextSeq(pushes.reduce((n, push) => n + push.items.length, 0));
        const pushed = pushes.map((push) => {
          const result = this.enqueueOne(push, opts, batch, seq);
          seq += push.items.length;
          return result;
        });
        for (const { knowledgeBaseId, status, priority, n } of batch.inserted.values()) {
          this.stmts.countInserted.run(knowledgeBaseId, status, priority, n);
        }
        return pushed;
      })
      .immediate();
    for (const id of batch.createdKbs) this.knownKnowledgeBases.add(id);
    return results;
  }

  private enqueueOne(push: PushInput, opts: EnqueueOptions, batch: BatchState, firstSeq: number): EnqueueResult {
    const { createdKbs } = batch;
    const jobIds: string[] = [];
    const touched = new Set<number>();
    const skippedPerKnowledgeBase = new Map<string, number>();
    let lastSortKey = 0;
    let seq = firstSeq;
    const now = opts.now;
    for (const item of push.items) {
      if (!this.knownKnowledgeBases.has(item.knowledgeBaseId) && !createdKbs.has(item.knowledgeBaseId)) {
        this.stmts.ensureKnowledgeBase.run(item.knowledgeBaseId, now);
        createdKbs.add(item.knowledgeBaseId);
      }
      const priority = priorityLevel(item);
      const hash = contentHash(item);
      const forceRefresh = item.options?.forceRefresh ? 1 : 0;
      const itemSeq = seq++;
      const jobId = jobIdOf(item.integrationId, item.externalId);
      const state = this.stmts.itemState.get(item.knowledgeBaseId, item.integrationId, item.externalId, hash, opts.activeModelId)!;
      let id: number;
      let key: number;
      if (state.queued_id !== null) {
        // The queued job keeps its arrival time, at the new priority.
        key = sortKey(arrivalOf(state.queued_key!, state.queued_priority!), priority);
        this.stmts.replaceQueued.run({
          sourceType: item.sourceType, data: JSON.stringify(item.data), contentHash: hash, forceRefresh, priority, seq: itemSeq,
          maxAttempts: opts.maxAttempts, apiKeyId: push.apiKeyId, now, id: state.queued_id, sortKey: key,
        });
        id = state.queued_id;
      } else if (state.unchanged && !forceRefresh) {
        // Unchanged content already indexed by the active model ends here, without a trip through
        // the queue: a full re-sync of an unchanged catalogue costs one lookup per item.
        id = Number(
          this.stmts.insertSkipped.run(
            jobId, item.knowledgeBaseId, item.integrationId, item.externalId, item.sourceType, hash,
            forceRefresh, priority, itemSeq, now, sortKey(now, priority), opts.maxAttempts, now, push.apiKeyId,
            now, now, now, now,
          ).lastInsertRowid,
        );
        skippedPerKnowledgeBase.set(item.knowledgeBaseId, (skippedPerKnowledgeBase.get(item.knowledgeBaseId) ?? 0) + 1);
        countInsert(batch.inserted, item.knowledgeBaseId, 'skipped', priority);
        key = 0;
      } else {
        const arrival = this.lanes.arrive(laneOf(item.integrationId, push.items.length), now, jobCost(item.data) * (opts.msPerCost ?? 0));
        key = sortKey(arrival, priority);
        id = Number(
          this.stmts.insertQueued.run(
            jobId, item.knowledgeBaseId, item.integrationId, item.externalId, item.sourceType, JSON.stringify(item.data), hash,
            forceRefresh, priority, itemSeq, now, key, opts.maxAttempts, now, push.apiKeyId, now, now,
          ).lastInsertRowid,
        );
        countInsert(batch.inserted, item.knowledgeBaseId, 'queued', priority);
      }
      touched.add(id);
      lastSortKey = Math.max(lastSortKey, key);
      jobIds.push(jobId);
    }
    for (const [knowledgeBaseId, count] of skippedPerKnowledgeBase) {
      this.stmts.countSkipped.run({ now, apiKeyId: push.apiKeyId, knowledgeBaseId, count });
    }
    return { jobIds, jobCount: touched.size, lastSortKey };
  }

  /**
   * Queues every indexed item again at low priority with forceRefresh (after a model change),
   * except items that already have a queued or running job. Returns how many were queued.
   */
  requeueAllItems(now: number, maxAttempts: number): number {
    return this.db
      .transaction(() => {
        const base = this.nextSeq(0) - 1;
        const lastId = this.stmts.lastId.get()!.id;
        const { changes } = this.stmts.requeueAll.run({ now, maxAttempts, base, sortKey: sortKey(now, PRIORITY_LEVELS.low) });
        this.stmts.countInsertedAfter.run(lastId);
        this.nextSeq(changes);
        return changes;
      })
      .immediate();
  }

  countQueuedUpTo(key: number): number {
    return this.stmts.countQueuedUpTo.get(key)!.n;
  }

  countByStatus(): Record<JobStatus, number> {
    const counts = { queued: 0, processing: 0, succeeded: 0, skipped: 0, failed: 0, cancelled: 0 };
    for (const row of this.stmts.countByStatus.all()) counts[row.status] = row.n;
    return counts;
  }

  latestForItem(identity: ItemIdentity): JobRow | null {
    const { knowledgeBaseId, integrationId, externalId } = identity;
    return this.stmts.latestForItem.get({ knowledgeBaseId, integrationId, externalId }) ?? null;
  }

  get(id: number): JobRow | null {
    return this.stmts.byId.get(id) ?? null;
  }

  /** The latest job of every item whose seed jobId is this string (several when ids contain hyphens). */
  latestForJobId(jobId: string): JobRow[] {
    return this.stmts.latestPerItemForJobId.all(JSON.stringify(jobIdSplits(jobId)));
  }

  /** Newest first; the cursor is the internal id of the last row of the previous page. */
  list(filter: JobFilter, limit: number, beforeId: number | null): JobRow[] {
    const { sql, params } = jobListQuery(filter, beforeId);
    return this.db.prepare<Array<string | number>, JobRow>(sql).all(...params, limit);
  }

  /** Puts a failed job back in the queue with fresh attempts; false if it is not failed. */
  retry(id: number, now: number): boolean {
    return this.stmts.retry.run({ id, now }).changes > 0;
  }
}

/** The statement of a job list page (its last parameter, the page size, is left to bind). */
export function jobListQuery(filter: JobFilter, beforeId: number | null): { sql: string; params: Array<string | number> } {
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (filter.status === 'queued') {
    // The ids of exactly the queued jobs, from the queue's own index alone: its cost follows the
    // queue's length (about 20 ms at 150,000, bench/queue-scale.ts). Left to itself, the planner
    // walks the table newest first, which behind a long history with a short queue reads every row.
    where.push("id IN (SELECT id FROM jobs INDEXED BY jobs_claim_order WHERE status = 'queued')");
  } else if (filter.status) {
    where.push(`status = ? AND ${NOT_QUEUED}`);
    params.push(filter.status);
  }
  if (filter.knowledgeBaseId) {
    where.push('knowledge_base_id = ?');
    params.push(filter.knowledgeBaseId);
  }
  if (filter.integrationId) {
    where.push('integration_id = ?');
    params.push(filter.integrationId);
  }
  if (filter.allowedKnowledgeBaseIds) {
    where.push(`knowledge_base_id IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(filter.allowedKnowledgeBaseIds));
  }
  if (beforeId !== null) {
    where.push('id < ?');
    params.push(beforeId);
  }
  return { sql: `SELECT * FROM jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`, params };
}
