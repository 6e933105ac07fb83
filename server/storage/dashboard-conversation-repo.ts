import type { Statement } from 'better-sqlite3';
import type {
  DashboardConversationFilter,
  DashboardConversationListing,
  DashboardConversationRecord,
  DashboardConversationStore,
  DashboardTurnRecord,
} from '../domain/dashboard-conversations.ts';
import type { ConversationPosition, PruneResult, VisitorRating } from '../domain/visitor-conversations.ts';
import { conversationConditions } from './conversation-conditions.ts';
import type { Db } from './db.ts';
import { type TurnRowColumns, turnFromRow, turnToRow } from './turn-rows.ts';

type ConversationRow = { id: string; user_id: string; user_name: string; started_at: number; last_seen_at: number };
type TurnRow = TurnRowColumns & { conversation_id: string };
type ListingRow = ConversationRow & { turns: number; unanswered: number; thumbs_up: number; thumbs_down: number; first_question: string | null };

const CONVERSATION_COLUMNS = 'id, user_id, user_name, started_at, last_seen_at';
/** The owner's list: a conversation with its counts and its first question (as the visitors' list). */
const LISTING = `c.id, c.user_id, c.user_name, c.started_at, c.last_seen_at,
  (SELECT count(*) FROM dashboard_turns t WHERE t.conversation_id = c.id) AS turns,
  (SELECT count(*) FROM dashboard_turns t WHERE t.conversation_id = c.id AND t.answered = 0) AS unanswered,
  (SELECT count(*) FROM dashboard_turns t WHERE t.conversation_id = c.id AND t.feedback = 'up') AS thumbs_up,
  (SELECT count(*) FROM dashboard_turns t WHERE t.conversation_id = c.id AND t.feedback = 'down') AS thumbs_down,
  (SELECT question FROM dashboard_turns t WHERE t.conversation_id = c.id ORDER BY t.asked_at, t.rowid LIMIT 1) AS first_question
  FROM dashboard_conversations c`;

/**
 * Dashboard conversations (migration: dashboard_conversations, dashboard_turns). Staff ask a
 * question at a time, so a turn is written at once, with no batching and no usage counts: the
 * API's usage counts the dashboard's questions already (ask-stream.ts), and the visitor counts
 * are about visitors only.
 */
export class DashboardConversationRepo implements DashboardConversationStore {
  private readonly stmts;
  private readonly insertTurnTx;
  private readonly pruneTx;
  /** Statements built from filters, kept by their text: a handful of shapes in practice. */
  private readonly statements = new Map<string, unknown>();

  constructor(private readonly db: Db) {
    this.stmts = {
      getConversation: db.prepare<[string], ConversationRow>(`SELECT ${CONVERSATION_COLUMNS} FROM dashboard_conversations WHERE id = ?`),
      insertConversation: db.prepare<[ConversationRow]>(
        `INSERT INTO dashboard_conversations (${CONVERSATION_COLUMNS}) VALUES (@id, @user_id, @user_name, @started_at, @last_seen_at)`,
      ),
      insertTurn: db.prepare<[TurnRow]>(
        `INSERT INTO dashboard_turns (id, conversation_id, knowledge_base_id, question, answer, answered, citations, latency_ms, feedback, asked_at)
         VALUES (@id, @conversation_id, @knowledge_base_id, @question, @answer, @answered, @citations, @latency_ms, @feedback, @asked_at)`,
      ),
      touch: db.prepare<[number, string]>('UPDATE dashboard_conversations SET last_seen_at = max(last_seen_at, ?) WHERE id = ?'),
      setFeedback: db.prepare<[VisitorRating, string, string]>('UPDATE dashboard_turns SET feedback = ? WHERE id = ? AND conversation_id = ?'),
      deleteConversation: db.prepare<[string]>('DELETE FROM dashboard_conversations WHERE id = ?'),
      pruneConversations: db.prepare<[number, number]>(
        `DELETE FROM dashboard_conversations WHERE id IN
           (SELECT id FROM dashboard_conversations WHERE last_seen_at < ? ORDER BY last_seen_at LIMIT ?)`,
      ),
      pruneTurns: db.prepare<[number, number]>(
        'DELETE FROM dashboard_turns WHERE id IN (SELECT id FROM dashboard_turns WHERE asked_at < ? ORDER BY asked_at LIMIT ?)',
      ),
      listing: db.prepare<[string], ListingRow>(`SELECT ${LISTING} WHERE c.id = ?`),
      turns: db.prepare<[string], TurnRow>('SELECT * FROM dashboard_turns WHERE conversation_id = ? ORDER BY asked_at, rowid'),
    };
    this.insertTurnTx = db.transaction((row: TurnRow) => {
      // A conversation deleted while its answer was being written: the turn goes with it.
      if (this.stmts.touch.run(row.asked_at, row.conversation_id).changes) this.stmts.insertTurn.run(row);
    });
    this.pruneTx = db.transaction((cutoff: number, limit: number): PruneResult => ({
      sessions: this.stmts.pruneConversations.run(cutoff, limit).changes,
      turns: this.stmts.pruneTurns.run(cutoff, limit).changes,
    }));
  }

  getConversation(id: string): DashboardConversationRecord | null {
    const row = this.stmts.getConversation.get(id);
    return row ? fromConversationRow(row) : null;
  }

  insertConversation(c: DashboardConversationRecord): void {
    this.stmts.insertConversation.run({ id: c.id, user_id: c.userId, user_name: c.userName, started_at: c.startedAt, last_seen_at: c.lastSeenAt });
  }

  insertTurn(turn: DashboardTurnRecord): void {
    this.insertTurnTx({ ...turnToRow(turn), conversation_id: turn.conversationId });
  }

  rate(conversationId: string, turnId: string, rating: VisitorRating): 'rated' | 'missing' {
    return this.stmts.setFeedback.run(rating, turnId, conversationId).changes > 0 ? 'rated' : 'missing';
  }

  deleteConversation(id: string): boolean {
    return this.stmts.deleteConversation.run(id).changes > 0;
  }

  pruneBefore(cutoff: number, limit: number): PruneResult {
    return this.pruneTx(cutoff, limit);
  }

  /**
   * As the visitors' list (VisitorRepo.findConversations), without widgets. Staff conversations
   * are few, so the text search is the LIKE alone (no trigram index).
   */
  findConversations(filter: DashboardConversationFilter, after: ConversationPosition | null, limit: number): DashboardConversationListing[] {
    const { where, params, turnWhere, turnParams } = conversationConditions(filter, after, 'c', 't.conversation_id = c.id');
    where.push(`EXISTS (SELECT 1 FROM dashboard_turns t WHERE ${turnWhere.join(' AND ')})`);
    const sql = `SELECT ${LISTING} WHERE ${where.join(' AND ')} ORDER BY c.started_at DESC, c.id DESC LIMIT ?`;
    return this.prepared<ListingRow>(sql).all(...params, ...turnParams, limit).map(fromListingRow);
  }

  listing(id: string): DashboardConversationListing | null {
    const row = this.stmts.listing.get(id);
    return row ? fromListingRow(row) : null;
  }

  turns(conversationId: string): DashboardTurnRecord[] {
    return this.stmts.turns.all(conversationId).map(fromTurnRow);
  }

  private prepared<Row>(sql: string): Statement<Array<string | number>, Row> {
    let statement = this.statements.get(sql) as Statement<Array<string | number>, Row> | undefined;
    if (!statement) {
      statement = this.db.prepare<Array<string | number>, Row>(sql);
      if (this.statements.size < 64) this.statements.set(sql, statement);
    }
    return statement;
  }
}

function fromConversationRow(row: ConversationRow): DashboardConversationRecord {
  return { id: row.id, userId: row.user_id, userName: row.user_name, startedAt: row.started_at, lastSeenAt: row.last_seen_at };
}

function fromListingRow(row: ListingRow): DashboardConversationListing {
  return {
    ...fromConversationRow(row),
    turns: row.turns,
    unanswered: row.unanswered,
    thumbsUp: row.thumbs_up,
    thumbsDown: row.thumbs_down,
    firstQuestion: row.first_question,
  };
}

function fromTurnRow(row: TurnRow): DashboardTurnRecord {
  return { ...turnFromRow(row), conversationId: row.conversation_id };
}
