import type { HandoffCounts } from '../../common/contract/handoffs.ts';
import type { HandoffFilter, HandoffListing, HandoffRecord, HandoffReply, HandoffRepository } from '../domain/handoffs.ts';
import type { Db } from './db.ts';

type HandoffRow = {
  id: string;
  session_id: string;
  widget_id: string;
  knowledge_base_id: string;
  question: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  status: 'open' | 'answered';
  created_at: number;
  reply_text: string | null;
  reply_at: number | null;
  reply_by: string | null;
};
type ListingRow = HandoffRow & { widget_name: string | null };

const COLUMNS = 'h.id, h.session_id, h.widget_id, h.knowledge_base_id, h.question, h.name, h.email, h.phone, h.status, h.created_at, h.reply_text, h.reply_at, h.reply_by';
const LISTING = `${COLUMNS}, CASE WHEN w.deleted_at IS NULL THEN w.name END AS widget_name FROM handoffs h LEFT JOIN widgets w ON w.id = h.widget_id`;

/** Visitors' handoffs; each row goes with its visitor session (ON DELETE CASCADE). */
export class HandoffRepo implements HandoffRepository {
  private readonly stmts;
  private readonly insertTx;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare<[HandoffRow]>(
        `INSERT INTO handoffs (id, session_id, widget_id, knowledge_base_id, question, name, email, phone, status, created_at, reply_text, reply_at, reply_by)
         VALUES (@id, @session_id, @widget_id, @knowledge_base_id, @question, @name, @email, @phone, @status, @created_at, @reply_text, @reply_at, @reply_by)`,
      ),
      touchSession: db.prepare<[number, string]>('UPDATE visitor_sessions SET last_seen_at = max(last_seen_at, ?) WHERE id = ?'),
      get: db.prepare<[string], ListingRow>(`SELECT ${LISTING} WHERE h.id = ?`),
      ofSession: db.prepare<[string, string], HandoffRow>(`SELECT ${COLUMNS} FROM handoffs h WHERE h.session_id = ? AND h.widget_id = ? ORDER BY h.created_at, h.rowid`),
      countOfSession: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM handoffs WHERE session_id = ?'),
      listAll: db.prepare<[number], ListingRow>(`SELECT ${LISTING} ORDER BY h.created_at DESC, h.id DESC LIMIT ?`),
      listOf: db.prepare<[string, number], ListingRow>(`SELECT ${LISTING} WHERE h.status = ? ORDER BY h.created_at DESC, h.id DESC LIMIT ?`),
      counts: db.prepare<[], { status: string; n: number }>('SELECT status, count(*) AS n FROM handoffs GROUP BY status'),
      reply: db.prepare<[string, number, string | null, string]>(
        "UPDATE handoffs SET status = 'answered', reply_text = ?, reply_at = ?, reply_by = ? WHERE id = ?",
      ),
    };
    this.insertTx = db.transaction((row: HandoffRow) => {
      this.stmts.insert.run(row);
      this.stmts.touchSession.run(row.created_at, row.session_id);
    });
  }

  insert(handoff: HandoffRecord): void {
    this.insertTx(toRow(handoff));
  }

  get(id: string): HandoffListing | null {
    const row = this.stmts.get.get(id);
    return row ? fromListingRow(row) : null;
  }

  ofSession(sessionId: string, widgetId: string): HandoffRecord[] {
    return this.stmts.ofSession.all(sessionId, widgetId).map(fromRow);
  }

  countOfSession(sessionId: string): number {
    return this.stmts.countOfSession.get(sessionId)!.n;
  }

  list(filter: HandoffFilter, limit: number): HandoffListing[] {
    const rows = filter === 'all' ? this.stmts.listAll.all(limit) : this.stmts.listOf.all(filter, limit);
    return rows.map(fromListingRow);
  }

  counts(): HandoffCounts {
    const counts: HandoffCounts = { open: 0, answered: 0 };
    for (const { status, n } of this.stmts.counts.all()) if (status === 'open' || status === 'answered') counts[status] = n;
    return counts;
  }

  reply(id: string, reply: HandoffReply): boolean {
    return this.stmts.reply.run(reply.text, reply.at, reply.by, id).changes > 0;
  }

  ofSessions(sessionIds: string[]): HandoffRecord[] {
    const marks = sessionIds.map(() => '?').join(', ');
    return this.db
      .prepare<string[], HandoffRow>(`SELECT ${COLUMNS} FROM handoffs h WHERE h.session_id IN (${marks}) ORDER BY h.created_at, h.rowid`)
      .all(...sessionIds)
      .map(fromRow);
  }
}

function toRow(h: HandoffRecord): HandoffRow {
  return {
    id: h.id,
    session_id: h.sessionId,
    widget_id: h.widgetId,
    knowledge_base_id: h.knowledgeBaseId,
    question: h.question,
    name: h.name,
    email: h.email,
    phone: h.phone,
    status: h.status,
    created_at: h.createdAt,
    reply_text: h.reply?.text ?? null,
    reply_at: h.reply?.at ?? null,
    reply_by: h.reply?.by ?? null,
  };
}

function fromRow(row: HandoffRow): HandoffRecord {
  return {
    id: row.id,
    widgetId: row.widget_id,
    sessionId: row.session_id,
    knowledgeBaseId: row.knowledge_base_id,
    question: row.question,
    name: row.name,
    email: row.email,
    phone: row.phone,
    status: row.status,
    createdAt: row.created_at,
    reply: row.reply_text !== null && row.reply_at !== null ? { text: row.reply_text, at: row.reply_at, by: row.reply_by } : null,
  };
}

function fromListingRow(row: ListingRow): HandoffListing {
  return { ...fromRow(row), widgetName: row.widget_name };
}
