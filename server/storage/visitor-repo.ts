import type {
  ConversationFilter,
  ConversationListing,
  ConversationPosition,
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
import { LATENCY_METRIC_PREFIX, latencyBucket } from '../domain/visitor-conversations.ts';
import { VISITOR_SESSION_MS } from '../domain/visitor-sessions.ts';
import type { Statement } from 'better-sqlite3';
import { conversationConditions } from './conversation-conditions.ts';
import type { Db } from './db.ts';
import { writeBehind } from './write-behind.ts';
import { type TurnRowColumns, turnFromRow, turnToRow } from './turn-rows.ts';

type SessionRow = { id: string; widget_id: string; origin: string; ip_hash: string; started_at: number; last_seen_at: number };
type TurnRow = TurnRowColumns & { session_id: string; widget_id: string };
type Metric = 'questions' | 'answered' | 'feedback_up' | 'feedback_down';

const HOUR = 3_600_000;
/** Below this many questions holding a search's words, the search starts from them (findConversations). */
const RARE_TEXT_HITS = 2_000;
const SESSION_COLUMNS = 'id, widget_id, origin, ip_hash, started_at, last_seen_at';
const SUMMARY = `${SESSION_COLUMNS},
  (SELECT count(*) FROM visitor_turns t WHERE t.session_id = s.id) AS turns,
  (SELECT count(*) FROM visitor_turns t WHERE t.session_id = s.id AND t.answered = 0) AS unanswered`;
/** The owner's list: a session with its counts, its widget's name (null once deleted) and its first question. */
const LISTING = `s.id, s.widget_id, s.origin, s.ip_hash, s.started_at, s.last_seen_at,
  CASE WHEN w.deleted_at IS NULL THEN w.name END AS widget_name,
  (SELECT count(*) FROM visitor_turns t WHERE t.session_id = s.id) AS turns,
  (SELECT count(*) FROM visitor_turns t WHERE t.session_id = s.id AND t.answered = 0) AS unanswered,
  (SELECT count(*) FROM visitor_turns t WHERE t.session_id = s.id AND t.feedback = 'up') AS thumbs_up,
  (SELECT count(*) FROM visitor_turns t WHERE t.session_id = s.id AND t.feedback = 'down') AS thumbs_down,
  (SELECT question FROM visitor_turns t WHERE t.session_id = s.id ORDER BY t.asked_at, t.rowid LIMIT 1) AS first_question
  FROM visitor_sessions s LEFT JOIN widgets w ON w.id = s.widget_id`;
type ListingRow = SessionRow & {
  widget_name: string | null;
  turns: number;
  unanswered: number;
  thumbs_up: number;
  thumbs_down: number;
  first_question: string | null;
};
const FEEDBACK_METRIC: Record<VisitorRating, Metric> = { up: 'feedback_up', down: 'feedback_down' };

/**
 * Visitor sessions, their turns and the visitor usage counts. A turn and its counts are written
 * in one transaction, and so is a change of feedback (the counts move from one rating to the
 * other, in the hour the question was asked).
 *
 * Turns are written a second later, several to a commit, like the API's usage counts: a commit
 * waits for the disk (a few milliseconds with synchronous=FULL), which a visitor's answer should
 * not. The connection's write-behind (write-behind.ts) writes them with the usage counts; every
 * read of turns or counts (here, question-group-repo.ts, visitor-analytics-repo.ts) writes what
 * waits first, so callers never see the delay; a crash loses the last second of turns.
 */
export class VisitorRepo implements VisitorRepository {
  private readonly stmts;
  private readonly insertTurnsTx;
  private pending: VisitorTurnRecord[] = [];
  private readonly writes;
  private readonly rateTx;
  private readonly deleteTx;
  private readonly pruneTx;

  constructor(private readonly db: Db) {
    this.stmts = {
      // A session's second first question (two asks at once) keeps the first's row.
      insertSession: db.prepare<[SessionRow]>(
        `INSERT INTO visitor_sessions (${SESSION_COLUMNS}) VALUES (@id, @widget_id, @origin, @ip_hash, @started_at, @last_seen_at)
         ON CONFLICT (id) DO NOTHING`,
      ),
      wasDeleted: db.prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM visitor_sessions_deleted WHERE id = ? AND until > ?'),
      // Only a session seen within a session's length may still have a valid token.
      markDeleted: db.prepare<[number, string, number]>(
        'INSERT OR REPLACE INTO visitor_sessions_deleted (id, until) SELECT id, ? FROM visitor_sessions WHERE id = ? AND last_seen_at > ?',
      ),
      markPruned: db.prepare<[number, number, number]>(
        'INSERT OR REPLACE INTO visitor_sessions_deleted (id, until) SELECT id, ? FROM visitor_sessions WHERE last_seen_at < ? AND last_seen_at > ?',
      ),
      forgetDeleted: db.prepare<[number]>('DELETE FROM visitor_sessions_deleted WHERE until <= ?'),
      getSession: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM visitor_sessions WHERE id = ?`),
      insertTurn: db.prepare<[TurnRow]>(
        // The session's ip_hash rides along for the content-gap report's distinct visitors.
        `INSERT INTO visitor_turns (id, session_id, widget_id, knowledge_base_id, question, answer, answered, citations, latency_ms, feedback, asked_at, ip_hash)
         VALUES (@id, @session_id, @widget_id, @knowledge_base_id, @question, @answer, @answered, @citations, @latency_ms, @feedback, @asked_at,
           (SELECT ip_hash FROM visitor_sessions WHERE id = @session_id))`,
      ),
      touchSession: db.prepare<[number, string]>('UPDATE visitor_sessions SET last_seen_at = max(last_seen_at, ?) WHERE id = ?'),
      // Metrics: questions, answered, feedback_up/down, sessions, and latency_<bucket> (answer-time histogram).
      count: db.prepare<[number, string, string, string, number]>(
        `INSERT INTO visitor_usage (hour, widget_id, knowledge_base_id, metric, value) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET value = value + excluded.value`,
      ),
      firstTurn: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM visitor_turns WHERE session_id = ? LIMIT 1)'),
      cite: db.prepare<[number, string, string, string, string]>(
        `INSERT INTO visitor_citations (hour, widget_id, knowledge_base_id, title, url, cited) VALUES (?, ?, ?, ?, ?, 1)
         ON CONFLICT DO UPDATE SET cited = cited + 1`,
      ),
      pruneCitations: db.prepare<[number]>('DELETE FROM visitor_citations WHERE hour < ?'),
      pruneGroupCounts: db.prepare<[number]>('DELETE FROM visitor_group_counts WHERE hour < ?'),
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
      // A handoff's contact details follow the conversation's retention, like its turns (a session that goes on keeps only its recent ones).
      pruneHandoffs: db.prepare<[number, number]>(
        'DELETE FROM handoffs WHERE id IN (SELECT id FROM handoffs WHERE created_at < ? ORDER BY created_at LIMIT ?)',
      ),
      listAll: db.prepare<[number, number], SessionRow & { turns: number; unanswered: number }>(
        `SELECT ${SUMMARY} FROM visitor_sessions s WHERE started_at < ? ORDER BY started_at DESC, id DESC LIMIT ?`,
      ),
      listOfWidget: db.prepare<[string, number, number], SessionRow & { turns: number; unanswered: number }>(
        `SELECT ${SUMMARY} FROM visitor_sessions s WHERE widget_id = ? AND started_at < ? ORDER BY started_at DESC, id DESC LIMIT ?`,
      ),
      turns: db.prepare<[string], TurnRow>('SELECT * FROM visitor_turns WHERE session_id = ? ORDER BY asked_at, rowid'),
      recentTurns: db.prepare<[string, number], TurnRow>('SELECT * FROM visitor_turns WHERE session_id = ? ORDER BY asked_at DESC, rowid DESC LIMIT ?'),
      textHits: db.prepare<[string, number], { n: number }>(
        'SELECT count(*) AS n FROM (SELECT 1 FROM visitor_questions_fts WHERE visitor_questions_fts MATCH ? LIMIT ?)',
      ),
      questionsSince: db.prepare<[string, number], { n: number }>(
        "SELECT coalesce(sum(value), 0) AS n FROM visitor_usage WHERE widget_id = ? AND hour >= ? AND metric = 'questions'",
      ),
    };
    this.insertTurnsTx = db.transaction((turns: VisitorTurnRecord[]) => {
      for (const turn of turns) {
        const hour = Math.floor(turn.askedAt / HOUR) * HOUR;
        this.stmts.count.run(hour, turn.widgetId, turn.knowledgeBaseId, 'questions', 1);
        if (turn.answered) this.stmts.count.run(hour, turn.widgetId, turn.knowledgeBaseId, 'answered', 1);
        this.stmts.count.run(hour, turn.widgetId, turn.knowledgeBaseId, `${LATENCY_METRIC_PREFIX}${latencyBucket(turn.latencyMs)}`, 1);
        for (const c of turn.citations) this.stmts.cite.run(hour, turn.widgetId, turn.knowledgeBaseId, c.title, c.url ?? '');
        // A session counts once, in the hour and knowledge base of its first question.
        if (this.stmts.firstTurn.get(turn.sessionId)!.n === 0) this.stmts.count.run(hour, turn.widgetId, turn.knowledgeBaseId, 'sessions', 1);
        // A conversation deleted before its turn was written: the question still counts.
        if (this.stmts.touchSession.run(turn.askedAt, turn.sessionId).changes) this.stmts.insertTurn.run(toTurnRow(turn));
      }
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
    this.deleteTx = db.transaction((id: string, now: number): boolean => {
      this.stmts.forgetDeleted.run(now);
      this.stmts.markDeleted.run(now + VISITOR_SESSION_MS, id, now - VISITOR_SESSION_MS);
      return this.stmts.deleteSession.run(id).changes > 0;
    });
    this.pruneTx = db.transaction(
      (cutoff: number, limit: number, now: number): PruneResult => {
        this.stmts.forgetDeleted.run(now);
        // Sessions of this page and the next ones alike: all go, page by page.
        if (cutoff > now - VISITOR_SESSION_MS) this.stmts.markPruned.run(now + VISITOR_SESSION_MS, cutoff, now - VISITOR_SESSION_MS);
        // The hourly counts of what the kept conversations asked and cited go with them.
        const hour = Math.floor(cutoff / HOUR) * HOUR;
        this.stmts.pruneCitations.run(hour);
        this.stmts.pruneGroupCounts.run(hour);
        const sessions = this.stmts.pruneSessions.run(cutoff, limit).changes;
        const turns = this.stmts.pruneTurns.run(cutoff, limit).changes + this.stmts.pruneHandoffs.run(cutoff, limit).changes;
        return { sessions, turns };
      },
    );
    this.writes = writeBehind(db);
    this.writes.add(() => this.writePending());
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
    this.pending.push(turn);
    this.writes.schedule();
  }

  /** Writes the turns (and every other record) that wait in memory on this connection. */
  flush(): void {
    this.writes.flush();
  }

  /** Writes the turns that wait, in one transaction; kept for the next attempt when that fails. */
  private writePending(): void {
    if (this.pending.length === 0) return;
    const turns = this.pending;
    this.pending = [];
    try {
      this.insertTurnsTx(turns);
    } catch (error) {
      this.pending = [...turns, ...this.pending];
      throw error;
    }
  }

  /** Writes what waits; a failure here must not keep the database from closing. */
  close(): void {
    this.writes.close();
  }

  rate(sessionId: string, turnId: string, rating: VisitorRating): 'rated' | 'missing' {
    this.flush();
    return this.rateTx(sessionId, turnId, rating);
  }

  deleteSession(id: string, now: number): boolean {
    this.flush();
    return this.deleteTx(id, now);
  }

  wasDeleted(id: string, now: number): boolean {
    return this.stmts.wasDeleted.get(id, now)!.n > 0;
  }

  pruneBefore(cutoff: number, limit: number, now: number): PruneResult {
    this.flush();
    return this.pruneTx(cutoff, limit, now);
  }

  listSessions(filter: { widgetId?: string | undefined; before?: number | undefined; limit: number }): ConversationSummary[] {
    this.flush();
    const before = filter.before ?? Number.MAX_SAFE_INTEGER;
    const rows = filter.widgetId === undefined
      ? this.stmts.listAll.all(before, filter.limit)
      : this.stmts.listOfWidget.all(filter.widgetId, before, filter.limit);
    return rows.map((row) => ({ ...fromSessionRow(row), turns: row.turns, unanswered: row.unanswered }));
  }

  findConversations(filter: ConversationFilter, after: ConversationPosition | null, limit: number): ConversationListing[] {
    this.flush();
    const { where, params, turnWhere, turnParams, words } = conversationConditions(filter, after, 's', 't.session_id = s.id');
    if (filter.widgetId !== undefined) {
      where.push('s.widget_id = ?');
      params.push(filter.widgetId);
    }
    // A conversation is listed when one of its turns matches every turn filter (and it has a turn at
    // all); with no turn filter, also when it holds only a handoff (a visitor who asked for a person
    // first), so its contact details are listed and exported with the others.
    const anyTurn = `EXISTS (SELECT 1 FROM visitor_turns t WHERE ${turnWhere.join(' AND ')})`;
    where.push(turnWhere.length === 1 ? `(${anyTurn} OR EXISTS (SELECT 1 FROM handoffs h WHERE h.session_id = s.id))` : anyTurn);
    const candidates = this.rareTextCandidates(words);
    if (candidates) {
      // Few questions hold the words: start from them rather than walk every conversation.
      where.push('s.id IN (SELECT c.session_id FROM visitor_turns c WHERE c.rowid IN (SELECT rowid FROM visitor_questions_fts WHERE visitor_questions_fts MATCH ?))');
      turnParams.push(candidates);
    }
    const sql = `SELECT ${LISTING} WHERE ${where.join(' AND ')} ORDER BY s.started_at DESC, s.id DESC LIMIT ?`;
    return this.prepared<ListingRow>(sql).all(...params, ...turnParams, limit).map(fromListingRow);
  }

  /**
   * The trigram query for a text search whose words are rare, or null. The search is a substring
   * search (each word anywhere in a question, `LIKE '%word%'`, ASCII case folded); the trigram
   * index finds the questions holding every trigram of every word of 3 characters or more (a
   * superset: the trigrams may lie apart, and the index folds case beyond ASCII), and the LIKE
   * decides. Words that many questions hold are found faster by walking the newest conversations
   * (a page fills at once), and words shorter than 3 characters have no trigram: then null.
   */
  private rareTextCandidates(words: string[]): string | null {
    const trigrams = new Set<string>();
    for (const word of words) {
      const chars = [...word];
      for (let i = 0; i + 3 <= chars.length; i++) trigrams.add(chars.slice(i, i + 3).join(''));
    }
    if (trigrams.size === 0) return null;
    const query = [...trigrams].map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ');
    return this.stmts.textHits.get(query, RARE_TEXT_HITS)!.n < RARE_TEXT_HITS ? query : null;
  }

  listing(sessionId: string): ConversationListing | null {
    this.flush();
    const row = this.prepared<ListingRow>(`SELECT ${LISTING} WHERE s.id = ?`).get(sessionId);
    return row ? fromListingRow(row) : null;
  }

  /** Statements built from filters, kept by their text: a handful of shapes in practice. */
  private readonly statements = new Map<string, unknown>();
  private prepared<Row>(sql: string): Statement<Array<string | number>, Row> {
    let statement = this.statements.get(sql) as Statement<Array<string | number>, Row> | undefined;
    if (!statement) {
      statement = this.db.prepare<Array<string | number>, Row>(sql);
      if (this.statements.size < 256) this.statements.set(sql, statement);
    }
    return statement;
  }

  turns(sessionId: string): VisitorTurnRecord[] {
    this.flush();
    return this.stmts.turns.all(sessionId).map(fromTurnRow);
  }

  recentTurns(sessionId: string, limit: number): VisitorTurnRecord[] {
    // Not flushed: a visitor's question should not wait for a commit; the turns that wait are read from memory.
    const stored = this.stmts.recentTurns.all(sessionId, limit).map(fromTurnRow).reverse();
    const waiting = this.pending.filter((turn) => turn.sessionId === sessionId);
    return [...stored, ...waiting].slice(-limit);
  }

  questionsSince(widgetId: string, since: number): number {
    this.flush();
    return this.stmts.questionsSince.get(widgetId, Math.floor(since / HOUR) * HOUR)!.n;
  }

  usage(filter: VisitorUsageFilter): VisitorUsage {
    this.flush();
    const where = ['hour >= ?', 'hour < ?'];
    const params: Array<string | number> = [filter.from, filter.to];
    if (filter.widgetId !== undefined) {
      where.push('widget_id = ?');
      params.push(filter.widgetId);
    }
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
        `SELECT widget_id, metric, sum(value) AS value FROM visitor_usage
         WHERE ${where.join(' AND ')} AND metric IN ('questions', 'answered', 'feedback_up', 'feedback_down')
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

function fromListingRow(row: ListingRow): ConversationListing {
  return {
    ...fromSessionRow(row),
    widgetName: row.widget_name,
    turns: row.turns,
    unanswered: row.unanswered,
    thumbsUp: row.thumbs_up,
    thumbsDown: row.thumbs_down,
    firstQuestion: row.first_question,
  };
}

function toTurnRow(turn: VisitorTurnRecord): TurnRow {
  return { ...turnToRow(turn), session_id: turn.sessionId, widget_id: turn.widgetId };
}

function fromTurnRow(row: TurnRow): VisitorTurnRecord {
  return { ...turnFromRow(row), sessionId: row.session_id, widgetId: row.widget_id };
}
