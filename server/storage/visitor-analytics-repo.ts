import type { Db } from './db.ts';

export type VisitorAnalyticsFilter = {
  from: number;
  to: number;
  /** Bucket length in ms (an hour or a day). */
  size: number;
  widgetId?: string | undefined;
  knowledgeBaseId?: string | undefined;
  /** A key restricted to knowledge bases sees only theirs. */
  knowledgeBaseIds?: string[] | undefined;
  top: number;
};

export type AnswerTime = { median: number | null; p95: number | null };
export type VisitorCounts = { questions: number; answered: number; answeredShare: number | null; feedbackUp: number; feedbackDown: number };
export type VisitorBucket = VisitorCounts & { start: number; sessions: number; answerTimeMs: AnswerTime };

export type VisitorAnalytics = {
  summary: VisitorCounts & { sessions: number; answerTimeMs: AnswerTime };
  series: VisitorBucket[];
  byKnowledgeBase: Array<VisitorCounts & { knowledgeBaseId: string }>;
  topQuestions: Array<{ question: string; asked: number; answered: number; wordings: number }>;
  topCitedItems: Array<{ title: string; url: string | null; cited: number }>;
};

type Metric = 'questions' | 'answered' | 'feedback_up' | 'feedback_down';

/**
 * The visitor assistant's analytics for `GET /usage` and the Usage screen. Questions, answers and
 * feedback come from the hourly counts (which outlive retention); sessions, answer times, top
 * questions (by question group) and top cited items from the conversations kept.
 */
export class VisitorAnalyticsRepo {
  constructor(
    private readonly db: Db,
    private readonly flushTurns: () => void,
  ) {}

  analytics(filter: VisitorAnalyticsFilter): VisitorAnalytics {
    this.flushTurns();
    const counts = this.where(filter, 'hour', 'knowledge_base_id');
    const turns = this.where(filter, 't.asked_at', 't.knowledge_base_id', 't.widget_id');
    const { size } = filter;

    const metricRows = this.db
      .prepare<Array<string | number>, { bucket: number; knowledge_base_id: string; metric: Metric; value: number }>(
        `SELECT (hour / ${size}) * ${size} AS bucket, knowledge_base_id, metric, sum(value) AS value FROM visitor_usage
          WHERE ${counts.sql} GROUP BY bucket, knowledge_base_id, metric`,
      )
      .all(...counts.params);
    const turnRows = this.db
      .prepare<Array<string | number>, { bucket: number; sessions: number; latencies: string }>(
        `SELECT (t.asked_at / ${size}) * ${size} AS bucket, count(DISTINCT t.session_id) AS sessions,
            json_group_array(t.latency_ms) AS latencies
          FROM visitor_turns t WHERE ${turns.sql} GROUP BY bucket`,
      )
      .all(...turns.params);
    const sessions = this.db
      .prepare<Array<string | number>, { n: number }>(`SELECT count(DISTINCT t.session_id) AS n FROM visitor_turns t WHERE ${turns.sql}`)
      .get(...turns.params)!.n;

    const buckets = new Map<number, VisitorBucket & { latency: number[] }>();
    const bucket = (start: number) => {
      let b = buckets.get(start);
      if (!b) buckets.set(start, (b = { start, sessions: 0, ...emptyCounts(), answerTimeMs: { median: null, p95: null }, latency: [] }));
      return b;
    };
    const byKb = new Map<string, VisitorCounts>();
    const summary = emptyCounts();
    for (const row of metricRows) {
      const kb = byKb.get(row.knowledge_base_id) ?? emptyCounts();
      byKb.set(row.knowledge_base_id, kb);
      for (const target of [bucket(row.bucket), kb, summary]) add(target, row.metric, row.value);
    }
    const all: number[] = [];
    for (const row of turnRows) {
      const b = bucket(row.bucket);
      b.sessions = row.sessions;
      b.latency = (JSON.parse(row.latencies) as number[]).sort((x, y) => x - y);
      b.answerTimeMs = { median: percentile(b.latency, 0.5), p95: percentile(b.latency, 0.95) };
      for (const ms of b.latency) all.push(ms);
    }
    all.sort((x, y) => x - y);
    // Every bucket of the range, empty ones too, so charts show the quiet days.
    for (let start = Math.floor(filter.from / size) * size; start < filter.to; start += size) bucket(start);

    return {
      summary: { ...share(summary), sessions, answerTimeMs: { median: percentile(all, 0.5), p95: percentile(all, 0.95) } },
      series: [...buckets.values()].sort((a, b) => a.start - b.start).map(({ latency: _latency, ...b }) => share(b)),
      byKnowledgeBase: [...byKb].map(([knowledgeBaseId, c]) => ({ knowledgeBaseId, ...share(c) })).sort((a, b) => b.questions - a.questions),
      topQuestions: this.topQuestions(turns, filter.top),
      topCitedItems: this.topCited(turns, filter.top),
    };
  }

  /** Questions by group (the same question worded differently counts once), most asked first; ungrouped turns by their wording. */
  private topQuestions(turns: { sql: string; params: Array<string | number> }, top: number): VisitorAnalytics['topQuestions'] {
    return this.db
      .prepare<Array<string | number>, { question: string; asked: number; answered: number; wordings: number }>(
        `SELECT coalesce(g.label, min(t.question)) AS question, count(*) AS asked, sum(t.answered) AS answered,
            count(DISTINCT t.question) AS wordings
          FROM visitor_turns t LEFT JOIN question_groups g ON g.id = t.question_group
          WHERE ${turns.sql} GROUP BY coalesce(CAST(t.question_group AS TEXT), 'q:' || t.question)
          ORDER BY asked DESC, question LIMIT ?`,
      )
      .all(...turns.params, top);
  }

  private topCited(turns: { sql: string; params: Array<string | number> }, top: number): VisitorAnalytics['topCitedItems'] {
    return this.db
      .prepare<Array<string | number>, { title: string; url: string | null; cited: number }>(
        `SELECT json_extract(c.value, '$.title') AS title, json_extract(c.value, '$.url') AS url, count(*) AS cited
          FROM visitor_turns t, json_each(t.citations) c
          WHERE ${turns.sql} AND t.answered = 1 GROUP BY title, url ORDER BY cited DESC, title LIMIT ?`,
      )
      .all(...turns.params, top);
  }

  private where(filter: VisitorAnalyticsFilter, time: string, kb: string, widget = 'widget_id'): { sql: string; params: Array<string | number> } {
    const where = [`${time} >= ?`, `${time} < ?`];
    const params: Array<string | number> = [filter.from, filter.to];
    if (filter.widgetId !== undefined) {
      where.push(`${widget} = ?`);
      params.push(filter.widgetId);
    }
    if (filter.knowledgeBaseId !== undefined) {
      where.push(`${kb} = ?`);
      params.push(filter.knowledgeBaseId);
    }
    if (filter.knowledgeBaseIds !== undefined) {
      where.push(`${kb} IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(filter.knowledgeBaseIds));
    }
    return { sql: where.join(' AND '), params };
  }
}

const emptyCounts = (): VisitorCounts => ({ questions: 0, answered: 0, answeredShare: null, feedbackUp: 0, feedbackDown: 0 });

function add(target: VisitorCounts, metric: Metric, value: number): void {
  if (metric === 'questions') target.questions += value;
  else if (metric === 'answered') target.answered += value;
  else if (metric === 'feedback_up') target.feedbackUp += value;
  else target.feedbackDown += value;
}

/** The answered share of the questions, to three decimals; null without questions. */
function share<T extends VisitorCounts>(c: T): T {
  return { ...c, answeredShare: c.questions ? Math.round((c.answered / c.questions) * 1000) / 1000 : null };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}
