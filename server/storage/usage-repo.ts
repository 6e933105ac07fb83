import type { Db } from './db.ts';
import { writeBehind } from './write-behind.ts';

export type UsageMetric =
  | 'requests'
  | 'items_pushed'
  | 'jobs_succeeded'
  | 'jobs_skipped'
  | 'jobs_failed'
  | 'jobs_cancelled'
  | 'chunks_embedded'
  | 'searches'
  | 'questions';

export type Granularity = 'hour' | 'day';

export type UsageFilter = {
  from: number;
  to: number;
  granularity: Granularity;
  keyId?: string | undefined;
  knowledgeBaseId?: string | undefined;
  /** Only these knowledge bases (a key restricted to some); combined with knowledgeBaseId. */
  knowledgeBaseIds?: string[] | undefined;
};

export type UsageTotals = {
  requests: number;
  itemsPushed: number;
  jobs: { succeeded: number; skipped: number; failed: number; cancelled: number };
  chunksEmbedded: number;
  searches: number;
  questions: number;
  answerLatencyMs: { median: number | null; p95: number | null };
};
export type UsageBucket = UsageTotals & { start: number };
export type UsageReport = {
  series: UsageBucket[];
  totals: UsageTotals;
  byKey: Array<{ keyId: string; totals: UsageTotals }>;
  byKnowledgeBase: Array<{ knowledgeBaseId: string; totals: UsageTotals }>;
  byRoute: Array<{ route: string; requests: number }>;
};

const HOUR = 3_600_000;
export const BUCKET_MS: Record<Granularity, number> = { hour: HOUR, day: 24 * HOUR };

const ADD_COUNT_SQL = `INSERT INTO usage_counts (hour, key_id, knowledge_base_id, route, metric, value)
  VALUES (@hour, @key, @kb, @route, @metric, @value)
  ON CONFLICT (hour, metric, key_id, knowledge_base_id, route) DO UPDATE SET value = value + excluded.value`;

type Who = { keyId?: string | null; knowledgeBaseId?: string | null; route?: string };

/**
 * Adds to a usage counter at once, inside the caller's transaction: for a count that must commit
 * with what it counts (jobs settled as they are pushed, storage/jobs/enqueue.ts).
 */
export function prepareAddUsage(db: Db): (metric: UsageMetric, who: Who, value: number, at: number) => void {
  const add = db.prepare<[{ hour: number; key: string; kb: string; route: string; metric: string; value: number }]>(ADD_COUNT_SQL);
  return (metric, who, value, at) => {
    add.run({ hour: Math.floor(at / HOUR) * HOUR, key: who.keyId ?? '', kb: who.knowledgeBaseId ?? '', route: who.route ?? '', metric, value });
  };
}

type Row = { bucket: number; key_id: string; knowledge_base_id: string; route: string; metric: UsageMetric; value: number };
type LatencyRow = { bucket: number; key_id: string; knowledge_base_id: string; ms: number };

/**
 * Usage counters per hour, key, knowledge base and route. Requests are counted in memory and
 * written a second later (and before every read), by the connection's write-behind (write-behind.ts); job outcomes and embedded chunks are counted by
 * triggers in the pipeline's own transactions (migration 4), jobs settled as they are pushed by
 * the push's own transaction (prepareAddUsage).
 */
export class UsageRepo {
  private readonly pending = new Map<string, number>();
  private readonly pendingLatency: Array<{ at: number; keyId: string; knowledgeBaseId: string; ms: number }> = [];
  private readonly writes;
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      add: db.prepare<[{ hour: number; key: string; kb: string; route: string; metric: string; value: number }]>(ADD_COUNT_SQL),
      latency: db.prepare<[number, string, string, number]>(
        'INSERT INTO usage_answer_latency (at, key_id, knowledge_base_id, ms) VALUES (?, ?, ?, ?)',
      ),
    };
    this.writes = writeBehind(db);
    this.writes.add(() => this.writePending());
  }

  /** Counts `value` of a metric now (or at `at`). Identifiers default to '' (none). */
  count(metric: UsageMetric, who: Who, value = 1, at = Date.now()): void {
    const key = JSON.stringify([Math.floor(at / HOUR) * HOUR, who.keyId ?? '', who.knowledgeBaseId ?? '', who.route ?? '', metric]);
    this.pending.set(key, (this.pending.get(key) ?? 0) + value);
    this.writes.schedule();
  }

  answerLatency(ms: number, who: { keyId?: string | null; knowledgeBaseId?: string | null }, at = Date.now()): void {
    this.pendingLatency.push({ at, keyId: who.keyId ?? '', knowledgeBaseId: who.knowledgeBaseId ?? '', ms });
    this.writes.schedule();
  }

  /** Writes every count (and every other record) that waits in memory on this connection. */
  flush(): void {
    this.writes.flush();
  }

  /** Writes the counts that wait, in one transaction; kept for the next attempt when that fails. */
  private writePending(): void {
    if (this.pending.size === 0 && this.pendingLatency.length === 0) return;
    const counts = [...this.pending];
    const latencies = this.pendingLatency.splice(0);
    this.pending.clear();
    try {
      this.db.transaction(() => {
        for (const [key, value] of counts) {
          const [hour, keyId, kb, route, metric] = JSON.parse(key) as [number, string, string, string, string];
          this.stmts.add.run({ hour, key: keyId, kb, route, metric, value });
        }
        for (const l of latencies) this.stmts.latency.run(l.at, l.keyId, l.knowledgeBaseId, l.ms);
      })();
    } catch (error) {
      // Keep the counts for the next attempt (the database may have been busy for long).
      for (const [key, value] of counts) this.pending.set(key, (this.pending.get(key) ?? 0) + value);
      this.pendingLatency.unshift(...latencies);
      throw error;
    }
  }

  /** Series from `from` (inclusive) to `to` (exclusive), both rounded down to the bucket, zeros included. */
  query(filter: UsageFilter): UsageReport {
    this.flush();
    const size = BUCKET_MS[filter.granularity];
    const from = Math.floor(filter.from / size) * size;
    const to = Math.ceil(filter.to / size) * size;
    const { where, params } = conditions(filter, from, to, 'hour');
    const rows = this.db
      .prepare<Array<string | number>, Row>(
        `SELECT (hour / ${size}) * ${size} AS bucket, key_id, knowledge_base_id, route, metric, sum(value) AS value
         FROM usage_counts WHERE ${where} GROUP BY bucket, key_id, knowledge_base_id, route, metric`,
      )
      .all(...params);
    const lat = conditions(filter, from, to, 'at');
    const latencies = this.db
      .prepare<Array<string | number>, LatencyRow>(
        `SELECT (at / ${size}) * ${size} AS bucket, key_id, knowledge_base_id, ms FROM usage_answer_latency WHERE ${lat.where}`,
      )
      .all(...lat.params);

    // Grouped once: filtering every row per bucket costs buckets × rows (720 hourly buckets a month).
    const rowsAt = groupBy(rows, (r) => r.bucket);
    const latenciesAt = groupBy(latencies, (l) => l.bucket);
    const series: UsageBucket[] = [];
    for (let start = from; start < to; start += size) {
      series.push({ start, ...summarize(rowsAt.get(start) ?? [], latenciesAt.get(start) ?? []) });
    }
    const group = <K extends 'key_id' | 'knowledge_base_id'>(field: K) => {
      const rowsOf = groupBy(rows, (r) => r[field]);
      const latenciesOf = groupBy(latencies, (l) => l[field]);
      return [...new Set([...rowsOf.keys(), ...latenciesOf.keys()])].sort().map((id) => ({
        id,
        totals: summarize(rowsOf.get(id) ?? [], latenciesOf.get(id) ?? []),
      }));
    };
    const routes = new Map<string, number>();
    for (const r of rows) if (r.metric === 'requests') routes.set(r.route, (routes.get(r.route) ?? 0) + r.value);
    return {
      series,
      totals: summarize(rows, latencies),
      byKey: group('key_id').map((g) => ({ keyId: g.id, totals: g.totals })),
      byKnowledgeBase: group('knowledge_base_id').map((g) => ({ knowledgeBaseId: g.id, totals: g.totals })),
      byRoute: [...routes].map(([route, requests]) => ({ route, requests })).sort((a, b) => b.requests - a.requests),
    };
  }
}

function conditions(filter: UsageFilter, from: number, to: number, column: 'hour' | 'at') {
  const where = [`${column} >= ?`, `${column} < ?`];
  const params: Array<string | number> = [from, to];
  if (filter.keyId !== undefined) {
    where.push('key_id = ?');
    params.push(filter.keyId);
  }
  if (filter.knowledgeBaseId !== undefined) {
    where.push('knowledge_base_id = ?');
    params.push(filter.knowledgeBaseId);
  }
  if (filter.knowledgeBaseIds !== undefined) {
    where.push('knowledge_base_id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(filter.knowledgeBaseIds));
  }
  return { where: where.join(' AND '), params };
}

function groupBy<T, K>(values: T[], keyOf: (value: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const value of values) {
    const key = keyOf(value);
    const group = groups.get(key);
    if (group) group.push(value);
    else groups.set(key, [value]);
  }
  return groups;
}

function summarize(rows: Row[], latencies: Array<{ ms: number }>): UsageTotals {
  const sum = (metric: UsageMetric) => rows.reduce((n, r) => (r.metric === metric ? n + r.value : n), 0);
  const sorted = latencies.map((l) => l.ms).sort((a, b) => a - b);
  return {
    requests: sum('requests'),
    itemsPushed: sum('items_pushed'),
    jobs: { succeeded: sum('jobs_succeeded'), skipped: sum('jobs_skipped'), failed: sum('jobs_failed'), cancelled: sum('jobs_cancelled') },
    chunksEmbedded: sum('chunks_embedded'),
    searches: sum('searches'),
    questions: sum('questions'),
    answerLatencyMs: { median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) },
  };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]! * 10) / 10;
}
