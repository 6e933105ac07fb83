import type {
  ConversationSummary,
  PruneResult,
  VisitorRating,
  VisitorRepository,
  VisitorSessionRecord,
  VisitorTurnRecord,
  VisitorUsage,
  VisitorUsageFilter,
  VisitorUsageTotals,
} from '../domain/visitor-conversations.ts';
import type { Db } from './db.ts';

type SessionRow = { id: string; widget_id: string; origin: string; ip_hash: string; started_at: number; last_seen_at: number };
type TurnRow = {
  id: string;
  session_id: string;
  widget_id: string;
  knowledge_base_id: string;
  question: string;
  answer: string;
  answered: number;
  citations: string;
  latency_ms: number;
  feedback: VisitorRating | null;
  asked_at: number;
};
type Metric = 'questions' | 'answered' | 'feedback_up' | 'feedback_down';

const HOUR = 3_600_000;
const SESSION_COLUMNS = 'id, widget_id, origin, ip_hash, started_at, last_seen_at';
const SUMMARY = `${SESSION_COLUMNS},
  (SELECT count(*) FROM visitor_turns t WHERE t.session_id = s.id) AS turns,
  (SELECT count(*) FROM visitor_turns t WHERE t.session_id = s.id AND t.answered = 0) AS unanswered`;
const FEEDBACK_METRIC: Record<VisitorRating, Metric> = { up: 'feedback_up', down: 'feedback_down' };

/**
 * Visitor sessions, their turns and the visitor usage counts. A turn and its counts are written
 * in one transaction, and so is a change of feedback (the counts move from one rating to the
 * other, in the hour the question was asked).
 */
export class VisitorRepo implements VisitorRepository {
  private readonly stmts;
  private readonly insertTurnTx;
  private readonly rateTx;
  private readonly pruneTx;

  constructor(private readonly db: Db) {
    this.stmts = {
      insertSession: db.prepare<[SessionRow]>(
        `INSERT INTO visitor_sessions (${SESSION_COLUMNS}) VALUES (@id, @widget_id, @origin, @ip_hash, @started_at, @last_seen_at)`,
      ),
      getSession: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM visitor_sessions WHERE id = ?`),
      insertTurn: db.prepare<[TurnRow]>(
        `INSERT INTO visitor_turns (id, session_id, widget_id, knowledge_base_id, question, answer, answered, citations, latency_ms, feedback, asked_at)
         VALUES (@id, @session_id, @widget_id, @knowledge_base_id, @question, @answer, @answered, @citations, @latency_ms, @feedback, @asked_at)`,
      ),
      touchSession: db.prepare<[number, string]>('UPDATE visitor_sessions SET last_seen_at = max(last_seen_at, ?) WHERE id = ?'),
      count: db.prepare<[number, string, string, Metric, number]>(
        `INSERT INTO visitor_usage (hour, widget_id, knowledge_base_id, metric, value) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET value = value + excluded.value`,
      ),
      turnOf: db.prepare<[string, string], TurnRow>('SELECT * FROM visitor_turns WHERE id = ? AND session_id = ?'),
      setFeedback: db.prepare<[VisitorRating, string]>('UPDATE visitor_turns SET feedback = ? WHERE id = ?'),
      deleteSession: db.prepare<[string]>('DELETE FROM visitor_sessions WHERE id = ?'),
      pruneSessions: db.prepare<[number, number]>(
        `DELETE FROM visitor_sessions WHERE id IN
           (SELECT id FROM visitor_sessions WHERE last_seen_at < ? ORDER BY last_seen_at LIMIT ?)`,
      ),
      pruneTurns: db.prepare<[number, number]>(
        'DELETE FROM visitor_turns WHERE id IN (SELECT id FROM visitor_turns WHERE asked_at < ? ORDER BY asked_at LIMIT ?)',
      ),
      listAll: db.prepare<[number, number], SessionRow & { turns: number; unanswered: number }>(
        `SELECT ${SUMMARY} FROM visitor_sessions s WHERE started_at < ? ORDER BY started_at DESC, id DESC LIMIT ?`,
      ),
      listOfWidget: db.prepare<[string, number, number], SessionRow & { turns: number; unanswered: number }>(
        `SELECT ${SUMMARY} FROM visitor_sessions s WHERE widget_id = ? AND started_at < ? ORDER BY started_at DESC, id DESC LIMIT ?`,
      ),
      turns: db.prepare<[string], TurnRow>('SELECT * FROM visitor_turns WHERE session_id = ? ORDER BY asked_at, rowid'),
      questionsSince: db.prepare<[string, number], { n: number }>(
        "SELECT coalesce(sum(value), 0) AS n FROM visitor_usage WHERE widget_id = ? AND hour >= ? AND metric = 'questions'",
      ),
    };
    this.insertTurnTx = db.transaction((turn: VisitorTurnRecord) => {
      const hour = Math.floor(turn.askedAt / HOUR) * HOUR;
      this.stmts.count.run(hour, turn.widgetId, turn.knowledgeBaseId, 'questions', 1);
      if (turn.answered) this.stmts.count.run(hour, turn.widgetId, turn.knowledgeBaseId, 'answered', 1);
      // A conversation deleted while its answer was being written: the question still counts.
      if (!this.stmts.touchSession.run(turn.askedAt, turn.sessionId).changes) return;
      this.stmts.insertTurn.run(toTurnRow(turn));
    });
    this.rateTx = db.transaction((sessionId: string, turnId: string, rating: VisitorRating): 'rated' | 'missing' => {
      const turn = this.stmts.turnOf.get(turnId, sessionId);
      if (!turn) return 'missing';
      if (turn.feedback === rating) return 'rated';
      const hour = Math.floor(turn.asked_at / HOUR) * HOUR;
      if (turn.feedback) this.stmts.count.run(hour, turn.widget_id, turn.knowledge_base_id, FEEDBACK_METRIC[turn.feedback], -1);
      this.stmts.count.run(hour, turn.widget_id, turn.knowledge_base_id, FEEDBACK_METRIC[rating], 1);
      this.stmts.setFeedback.run(rating, turnId);
      return 'rated';
    });
    this.pruneTx = db.transaction(
      (cutoff: number, limit: number): PruneResult => ({
        sessions: this.stmts.pruneSessions.run(cutoff, limit).changes,
        turns: this.stmts.pruneTurns.run(cutoff, limit).changes,
      }),
    );
  }

  insertSession(session: VisitorSessionRecord): void {
    this.stmts.insertSession.run({
      id: session.id,
      widget_id: session.widgetId,
      origin: session.origin,
      ip_hash: session.ipHash,
      started_at: session.startedAt,
      last_seen_at: session.lastSeenAt,
    });
  }

  getSession(id: string): VisitorSessionRecord | null {
    const row = this.stmts.getSession.get(id);
    return row ? fromSessionRow(row) : null;
  }

  insertTurn(turn: VisitorTurnRecord): void {
    this.insertTurnTx(turn);
  }

  rate(sessionId: string, turnId: string, rating: VisitorRating): 'rated' | 'missing' {
    return this.rateTx(sessionId, turnId, rating);
  }

  deleteSession(id: string): boolean {
    return this.stmts.deleteSession.run(id).changes > 0;
  }

  pruneBefore(cutoff: number, limit: number): PruneResult {
    return this.pruneTx(cutoff, limit);
  }

  listSessions(filter: { widgetId?: string | undefined; before?: number | undefined; limit: number }): ConversationSummary[] {
    const before = filter.before ?? Number.MAX_SAFE_INTEGER;
    const rows = filter.widgetId === undefined
      ? this.stmts.listAll.all(before, filter.limit)
      : this.stmts.listOfWidget.all(filter.widgetId, before, filter.limit);
    return rows.map((row) => ({ ...fromSessionRow(row), turns: row.turns, unanswered: row.unanswered }));
  }

  turns(sessionId: string): VisitorTurnRecord[] {
    return this.stmts.turns.all(sessionId).map(fromTurnRow);
  }

  questionsSince(widgetId: string, since: number): number {
    return this.stmts.questionsSince.get(widgetId, Math.floor(since / HOUR) * HOUR)!.n;
  }

  usage(filter: VisitorUsageFilter): VisitorUsage {
    const where = ['hour >= ?', 'hour < ?'];
    const params: Array<string | number> = [filter.from, filter.to];
    if (filter.knowledgeBaseId !== undefined) {
      where.push('knowledge_base_id = ?');
      params.push(filter.knowledgeBaseId);
    }
    if (filter.knowledgeBaseIds !== undefined) {
      where.push('knowledge_base_id IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(filter.knowledgeBaseIds));
    }
    const rows = this.db
      .prepare<Array<string | number>, { widget_id: string; metric: Metric; value: number }>(
        `SELECT widget_id, metric, sum(value) AS value FROM visitor_usage WHERE ${where.join(' AND ')}
         GROUP BY widget_id, metric ORDER BY widget_id`,
      )
      .all(...params);
    const byWidget = new Map<string, VisitorUsageTotals>();
    const totals = emptyTotals();
    for (const row of rows) {
      const widget = byWidget.get(row.widget_id) ?? emptyTotals();
      byWidget.set(row.widget_id, widget);
      for (const target of [widget, totals]) add(target, row.metric, row.value);
    }
    return { totals, byWidget: [...byWidget].map(([widgetId, counts]) => ({ widgetId, ...counts })) };
  }
}

const emptyTotals = (): VisitorUsageTotals => ({ questions: 0, answered: 0, feedbackUp: 0, feedbackDown: 0 });

function add(totals: VisitorUsageTotals, metric: Metric, value: number): void {
  if (metric === 'questions') totals.questions += value;
  else if (metric === 'answered') totals.answered += value;
  else if (metric === 'feedback_up') totals.feedbackUp += value;
  else totals.feedbackDown += value;
}

function fromSessionRow(row: SessionRow): VisitorSessionRecord {
  return { id: row.id, widgetId: row.widget_id, origin: row.origin, ipHash: row.ip_hash, startedAt: row.started_at, lastSeenAt: row.last_seen_at };
}

function toTurnRow(turn: VisitorTurnRecord): TurnRow {
  return {
    id: turn.id,
    session_id: turn.sessionId,
    widget_id: turn.widgetId,
    knowledge_base_id: turn.knowledgeBaseId,
    question: turn.question,
    answer: turn.answer,
    answered: turn.answered ? 1 : 0,
    citations: JSON.stringify(turn.citations),
    latency_ms: turn.latencyMs,
    feedback: turn.feedback,
    asked_at: turn.askedAt,
  };
}

function fromTurnRow(row: TurnRow): VisitorTurnRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    widgetId: row.widget_id,
    knowledgeBaseId: row.knowledge_base_id,
    question: row.question,
    answer: row.answer,
    answered: row.answered === 1,
    citations: JSON.parse(row.citations) as VisitorTurnRecord['citations'],
    latencyMs: row.latency_ms,
    feedback: row.feedback,
    askedAt: row.asked_at,
  };
}
