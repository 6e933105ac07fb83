import type { Statement } from 'better-sqlite3';
import type {
  ContentGapFilter,
  ContentGapRow,
  GroupAssignment,
  QuestionGroupRecord,
  QuestionGroupStore,
  UngroupedTurn,
} from '../domain/content-gaps.ts';
import type { Db } from './db.ts';
import { writeBehind } from './write-behind.ts';

type GroupRow = { id: number; knowledge_base_id: string; model: string; label: string; stems: string; centroid: Buffer; members: number; created_at: number; answered_at: number | null; answered_item: string | null };

const HOUR = 3_600_000;

/** A turn the owner should look at: the knowledge base held no answer, or a visitor rated the answer down. */
const GAP = "(t.answered = 0 OR t.feedback = 'down')";

/**
 * Question groups (migration: question_groups, visitor_turns.question_group). Reads through
 * this repository first write the visitor turns that wait in memory (the connection's
 * write-behind, write-behind.ts), so a turn answered a moment ago is grouped and reported like the others.
 */
export class QuestionGroupRepo implements QuestionGroupStore {
  private readonly stmts;
  private readonly saveTx;
  private readonly statements = new Map<string, Statement<Array<string | number>, unknown>>();
  private readonly waiting;

  constructor(private readonly db: Db) {
    this.waiting = writeBehind(db);
    this.stmts = {
      ungrouped: db.prepare<[number], { id: string; widget_id: string; knowledge_base_id: string; question: string; answered: number; asked_at: number }>(
        'SELECT id, widget_id, knowledge_base_id, question, answered, asked_at FROM visitor_turns WHERE question_group IS NULL ORDER BY asked_at LIMIT ?',
      ),
      countInGroup: db.prepare<[number, string, string, number, number]>(
        `INSERT INTO visitor_group_counts (hour, widget_id, knowledge_base_id, question_group, asked, answered) VALUES (?, ?, ?, ?, 1, ?)
         ON CONFLICT DO UPDATE SET asked = asked + 1, answered = answered + excluded.answered`,
      ),
      resetCounts: db.prepare('DELETE FROM visitor_group_counts'),
      countUngrouped: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM visitor_turns WHERE question_group IS NULL'),
      groupsOf: db.prepare<[string, string], GroupRow>('SELECT * FROM question_groups WHERE knowledge_base_id = ? AND model = ? ORDER BY id'),
      group: db.prepare<[number], GroupRow>('SELECT * FROM question_groups WHERE id = ?'),
      otherModels: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM question_groups WHERE model <> ?'),
      insertGroup: db.prepare<[string, string, string, string, Buffer, number, number]>(
        'INSERT INTO question_groups (knowledge_base_id, model, label, stems, centroid, members, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      updateGroup: db.prepare<[Buffer, number, number]>('UPDATE question_groups SET centroid = ?, members = ? WHERE id = ?'),
      setTurnGroup: db.prepare<[number, string]>('UPDATE visitor_turns SET question_group = ? WHERE id = ?'),
      markAnswered: db.prepare<[number, string, number]>('UPDATE question_groups SET answered_at = ?, answered_item = ? WHERE id = ?'),
      resetTurns: db.prepare('UPDATE visitor_turns SET question_group = NULL WHERE question_group IS NOT NULL'),
      resetGroups: db.prepare('DELETE FROM question_groups'),
      pruneEmpty: db.prepare<[number]>(
        `DELETE FROM question_groups WHERE id IN (SELECT g.id FROM question_groups g
           WHERE NOT EXISTS (SELECT 1 FROM visitor_turns t WHERE t.question_group = g.id) LIMIT ?)`,
      ),
    };
    this.saveTx = db.transaction((assignments: GroupAssignment[], model: string, now: number): number[] => {
      const created = new Map<number, number>();
      const ids: number[] = [];
      for (const a of assignments) {
        let id: number;
        if (a.group.kind === 'new') {
          const known = created.get(a.group.ref);
          if (known === undefined) {
            const g = a.group;
            id = Number(this.stmts.insertGroup.run(a.turn.knowledgeBaseId, model, g.label, JSON.stringify(g.stems), vectorBlob(g.centroid), g.members, now).lastInsertRowid);
            created.set(g.ref, id);
          } else id = known;
        } else id = a.group.id;
        this.stmts.setTurnGroup.run(id, a.turn.turnId);
        const { widgetId, knowledgeBaseId, askedAt, answered } = a.turn;
        this.stmts.countInGroup.run(Math.floor(askedAt / HOUR) * HOUR, widgetId, knowledgeBaseId, id, answered ? 1 : 0);
        ids.push(id);
      }
      return ids;
    });
  }

  ungrouped(limit: number): UngroupedTurn[] {
    this.waiting.flush();
    return this.stmts.ungrouped.all(limit).map((r) => ({
      turnId: r.id,
      widgetId: r.widget_id,
      knowledgeBaseId: r.knowledge_base_id,
      question: r.question,
      answered: r.answered === 1,
      askedAt: r.asked_at,
    }));
  }

  countUngrouped(): number {
    this.waiting.flush();
    return this.stmts.countUngrouped.get()!.n;
  }

  groupsOf(knowledgeBaseId: string, model: string): QuestionGroupRecord[] {
    return this.stmts.groupsOf.all(knowledgeBaseId, model).map(fromGroupRow);
  }

  group(id: number): QuestionGroupRecord | null {
    const row = this.stmts.group.get(id);
    return row ? fromGroupRow(row) : null;
  }

  /** Forgets every group when they were made with another model: their vectors cannot be compared. */
  resetIfModelChanged(model: string): boolean {
    if (this.stmts.otherModels.get(model)!.n === 0) return false;
    this.db.transaction(() => {
      this.stmts.resetTurns.run();
      this.stmts.resetGroups.run();
      this.stmts.resetCounts.run();
    })();
    return true;
  }

  /** Writes new groups, moved centroids and the turns' groups in one transaction; returns each turn's group id. */
  save(assignments: GroupAssignment[], updated: Array<{ id: number; centroid: Float32Array; members: number }>, model: string, now: number): number[] {
    return this.db.transaction(() => {
      for (const g of updated) this.stmts.updateGroup.run(vectorBlob(g.centroid), g.members, g.id);
      return this.saveTx(assignments, model, now);
    })();
  }

  markAnswered(id: number, item: string, at: number): boolean {
    return this.stmts.markAnswered.run(at, item, id).changes > 0;
  }

  pruneEmpty(limit: number): number {
    return this.stmts.pruneEmpty.run(limit).changes;
  }

  /** The gap groups, most visitors first: only turns that abstained or were rated down count. */
  gaps(filter: ContentGapFilter, limit: number): ContentGapRow[] {
    this.waiting.flush();
    const where = [GAP, 't.question_group IS NOT NULL'];
    const params: Array<string | number> = [];
    if (filter.groupId !== undefined) {
      where.push('t.question_group = ?');
      params.push(filter.groupId);
    }
    if (filter.widgetId !== undefined) {
      where.push('t.widget_id = ?');
      params.push(filter.widgetId);
    }
    if (filter.knowledgeBaseId !== undefined) {
      where.push('t.knowledge_base_id = ?');
      params.push(filter.knowledgeBaseId);
    }
    if (filter.from !== undefined) {
      where.push('t.asked_at >= ?');
      params.push(filter.from);
    }
    if (filter.to !== undefined) {
      where.push('t.asked_at < ?');
      params.push(filter.to);
    }
    const status =
      filter.status === 'open'
        ? 'HAVING v.answered_at IS NULL OR max(v.last_asked) > v.answered_at'
        : filter.status === 'answered'
          ? 'HAVING v.answered_at IS NOT NULL AND max(v.last_asked) <= v.answered_at'
          : '';
    // One row per group and visitor first (the gap index is in that order, so no sort and no
    // join to the sessions), then per group: its visitors are its rows.
    const sql = `SELECT v.id, v.knowledge_base_id, v.label, v.answered_at, v.answered_item,
        sum(v.asked) AS asked, count(*) AS visitors, max(v.last_asked) AS last_asked,
        sum(v.since_answer) AS since_answer, sum(v.abstained) AS abstained, sum(v.thumbs_down) AS thumbs_down
      FROM (SELECT g.id, g.knowledge_base_id, g.label, g.answered_at, g.answered_item,
          count(*) AS asked, max(t.asked_at) AS last_asked,
          sum(CASE WHEN g.answered_at IS NOT NULL AND t.asked_at > g.answered_at THEN 1 ELSE 0 END) AS since_answer,
          sum(t.answered = 0) AS abstained, sum(t.feedback IS 'down') AS thumbs_down
        FROM visitor_turns t INDEXED BY visitor_turns_gap_visitors JOIN question_groups g ON g.id = t.question_group
        WHERE ${where.join(' AND ')}
        GROUP BY t.question_group, t.ip_hash) v
      GROUP BY v.id ${status}
      ORDER BY visitors DESC, asked DESC, last_asked DESC LIMIT ?`;
    type Row = { id: number; knowledge_base_id: string; label: string; answered_at: number | null; answered_item: string | null; asked: number; visitors: number; last_asked: number; since_answer: number; abstained: number; thumbs_down: number };
    const rows = this.prepared<Row>(sql).all(...params, limit);
    return rows.map((r) => ({
      groupId: r.id,
      knowledgeBaseId: r.knowledge_base_id,
      label: r.label,
      asked: r.asked,
      visitors: r.visitors,
      abstained: r.abstained,
      thumbsDown: r.thumbs_down,
      lastAskedAt: r.last_asked,
      answeredAt: r.answered_at,
      answeredItem: r.answered_item,
      askedSinceAnswer: r.since_answer,
    }));
  }

  /** The most asked wordings of each group's gap turns, `perGroup` each. */
  examples(groupIds: number[], perGroup: number): Map<number, Array<{ question: string; asked: number }>> {
    const out = new Map<number, Array<{ question: string; asked: number }>>();
    if (groupIds.length === 0) return out;
    const rows = this.prepared<{ question_group: number; question: string; asked: number }>(
      `SELECT question_group, question, count(*) AS asked FROM visitor_turns t INDEXED BY visitor_turns_gap_wordings
        WHERE question_group IN (SELECT value FROM json_each(?)) AND ${GAP}
        GROUP BY question_group, question ORDER BY question_group, asked DESC, max(asked_at) DESC`,
    ).all(JSON.stringify(groupIds));
    for (const row of rows) {
      const list = out.get(row.question_group) ?? [];
      if (list.length < perGroup) list.push({ question: row.question, asked: row.asked });
      out.set(row.question_group, list);
    }
    return out;
  }

  private prepared<Row>(sql: string): Statement<Array<string | number>, Row> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare<Array<string | number>, unknown>(sql);
      if (this.statements.size < 64) this.statements.set(sql, statement);
    }
    return statement as Statement<Array<string | number>, Row>;
  }
}

function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function fromGroupRow(row: GroupRow): QuestionGroupRecord {
  const bytes = new Uint8Array(row.centroid);
  return {
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    model: row.model,
    label: row.label,
    stems: JSON.parse(row.stems) as string[],
    centroid: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4),
    members: row.members,
    createdAt: row.created_at,
    answeredAt: row.answered_at,
    answeredItem: row.answered_item,
  };
}
