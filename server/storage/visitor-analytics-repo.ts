import { histogramPercentile, LATENCY_METRIC_PREFIX } from '../domain/visitor-conversations.ts';
import type { Db } from './db.ts';
import { writeBehind } from './write-behind.ts';

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

const DAY = 86_400_000;

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


/**
 * The visitor assistant's analytics for `GET /usage` and the Usage screen, read from hourly
 * counts only (a month of 100,000 conversations in a few milliseconds): questions, answers,
 * feedback, sessions and the answer-time histogram in visitor_usage, which outlive retention;
 * questions per group and cited items, which go at the retention cutoff with the conversations.
 */
export class VisitorAnalyticsRepo {
  constructor(private readonly db: Db) {}

  analytics(filter: VisitorAnalyticsFilter): VisitorAnalytics {
    // Turns answered a moment ago wait in memory (write-behind.ts): counted like the others.
    writeBehind(this.db).flush();
    const { size } = filter;
    const counts = this.where(filter, 'hour', 'knowledge_base_id');
    const rows = this.db
      .prepare<Array<string | number>, { bucket: number; knowledge_base_id: string; metric: string; value: number }>(
        `SELECT (hour / ${size}) * ${size} AS bucket, knowledge_base_id, metric, sum(value) AS value FROM visitor_usage
          WHERE ${counts.sql} GROUP BY bucket, knowledge_base_id, metric`,
      )
      .all(...counts.params);

    type Acc = VisitorCounts & { sessions: number; latency: Map<number, number> };
    const empty = (): Acc => ({ ...emptyCounts(), sessions: 0, latency: new Map() });
    const buckets = new Map<number, Acc>();
    // Every bucket of the range, empty ones too, so charts show the quiet days.
    for (let start = Math.floor(filter.from / size) * size; start < filter.to; start += size) buckets.set(start, empty());
    const byKb = new Map<string, Acc>();
    const summary = empty();
    for (const row of rows) {
      let b = buckets.get(row.bucket);
      if (!b) buckets.set(row.bucket, (b = empty()));
      let kb = byKb.get(row.knowledge_base_id);
      if (!kb) byKb.set(row.knowledge_base_id, (kb = empty()));
      for (const target of [b, kb, summary]) add(target, row.metric, row.value);
    }
    const time = (acc: Acc): AnswerTime => ({ median: histogramPercentile(acc.latency, 0.5), p95: histogramPercentile(acc.latency, 0.95) });
    const counted = ({ questions, answered, feedbackUp, feedbackDown }: Acc): VisitorCounts => share({ questions, answered, answeredShare: null, feedbackUp, feedbackDown });
    return {
      summary: { ...counted(summary), sessions: summary.sessions, answerTimeMs: time(summary) },
      series: [...buckets].sort(([a], [b]) => a - b).map(([start, acc]) => ({ start, sessions: acc.sessions, ...counted(acc), answerTimeMs: time(acc) })),
      byKnowledgeBase: [...byKb]
        .filter(([, acc]) => acc.questions > 0)
        .map(([knowledgeBaseId, acc]) => ({ knowledgeBaseId, ...counted(acc) }))
        .sort((a, b) => b.questions - a.questions),
      topQuestions: this.topQuestions(filter),
      topCitedItems: this.topCited(filter),
    };
  }

  /**
   * Questions by group (the same question worded differently counts once), most asked first,
   * from the grouping pass's hourly counts; named by the group's first wording.
   */
  private topQuestions(filter: VisitorAnalyticsFilter): VisitorAnalytics['topQuestions'] {
    // Whole days from the daily roll-up, the hours before the first and after the last from the
    // hourly counts: the same sums, from a third of the rows over a month (bench/conversation-scale.ts).
    const firstDay = Math.ceil(filter.from / DAY) * DAY;
    const lastDay = Math.max(firstDay, Math.floor(filter.to / DAY) * DAY);
    const parts: Array<{ sql: string; params: Array<string | number> }> = [];
    const hourly = (from: number, to: number) => {
      const w = this.where({ ...filter, from, to }, 'hour', 'knowledge_base_id');
      parts.push({ sql: `SELECT question_group, asked, answered FROM visitor_group_counts WHERE ${w.sql}`, params: w.params });
    };
    if (firstDay < lastDay) {
      hourly(filter.from, firstDay);
      const w = this.where({ ...filter, from: firstDay, to: lastDay }, 'day', 'knowledge_base_id');
      parts.push({ sql: `SELECT question_group, asked, answered FROM visitor_group_days WHERE ${w.sql}`, params: w.params });
      hourly(lastDay, filter.to);
    } else hourly(filter.from, filter.to);
    const top = this.db
      .prepare<Array<string | number>, { id: number; question: string; asked: number; answered: number }>(
        `SELECT g.id, g.label AS question, sum(c.asked) AS asked, sum(c.answered) AS answered
          FROM (${parts.map((p) => p.sql).join(' UNION ALL ')}) c JOIN question_groups g ON g.id = c.question_group
          GROUP BY g.id ORDER BY asked DESC, g.id LIMIT ?`,
      )
      .all(...parts.flatMap((p) => p.params), filter.top);
    if (top.length === 0) return [];
    const turns = this.where(filter, 't.asked_at', 't.knowledge_base_id', 't.widget_id');
    const wordings = new Map(
      this.db
        .prepare<Array<string | number>, { question_group: number; n: number }>(
          `SELECT t.question_group, count(DISTINCT t.question) AS n FROM visitor_turns t INDEXED BY visitor_turns_group_wordings
            WHERE t.question_group IN (SELECT value FROM json_each(?)) AND ${turns.sql} GROUP BY t.question_group`,
        )
        .all(JSON.stringify(top.map((q) => q.id)), ...turns.params)
        .map((r) => [r.question_group, r.n]),
    );
    return top.map(({ id, ...q }) => ({ ...q, wordings: wordings.get(id) ?? 0 }));
  }

  private topCited(filter: VisitorAnalyticsFilter): VisitorAnalytics['topCitedItems'] {
    const counts = this.where(filter, 'hour', 'knowledge_base_id');
    return this.db
      .prepare<Array<string | number>, { title: string; url: string; cited: number }>(
        `SELECT title, url, sum(cited) AS cited FROM visitor_citations WHERE ${counts.sql}
          GROUP BY title, url ORDER BY cited DESC, title LIMIT ?`,
      )
      .all(...counts.params, filter.top)
      .map((r) => ({ title: r.title, url: r.url || null, cited: r.cited }));
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

function add(target: VisitorCounts & { sessions: number; latency: Map<number, number> }, metric: string, value: number): void {
  if (metric === 'questions') target.questions += value;
  else if (metric === 'answered') target.answered += value;
  else if (metric === 'feedback_up') target.feedbackUp += value;
  else if (metric === 'feedback_down') target.feedbackDown += value;
  else if (metric === 'sessions') target.sessions += value;
  else if (metric.startsWith(LATENCY_METRIC_PREFIX)) {
    const bucket = Number(metric.slice(LATENCY_METRIC_PREFIX.length));
    target.latency.set(bucket, (target.latency.get(bucket) ?? 0) + value);
  }
}

/** The answered share of the questions, to three decimals; null without questions. */
function share<T extends VisitorCounts>(c: T): T {
  return { ...c, answeredShare: c.questions ? Math.round((c.answered / c.questions) * 1000) / 1000 : null };
}

