import type { CuratedAnswerFields, CuratedAnswerRecord, CuratedAnswerStore } from '../domain/curated-answers.ts';
import type { Db } from './db.ts';

type Row = { id: number; knowledge_base_id: string; question: string; answer: string; also_asked: string; created_at: number; updated_at: number };
const COLUMNS = 'id, knowledge_base_id, question, answer, also_asked, created_at, updated_at';

/** Curated answers per knowledge base (migration: curated_answers). */
export class CuratedAnswerRepo implements CuratedAnswerStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      list: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM curated_answers WHERE knowledge_base_id = ? ORDER BY id`),
      get: db.prepare<[string, number], Row>(`SELECT ${COLUMNS} FROM curated_answers WHERE knowledge_base_id = ? AND id = ?`),
      insert: db.prepare<[string, string, string, string, number, number], Row>(
        `INSERT INTO curated_answers (knowledge_base_id, question, answer, also_asked, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      ),
      update: db.prepare<[string, string, string, number, string, number], Row>(
        `UPDATE curated_answers SET question = ?, answer = ?, also_asked = ?, updated_at = ?
         WHERE knowledge_base_id = ? AND id = ? RETURNING ${COLUMNS}`,
      ),
      delete: db.prepare<[string, number]>('DELETE FROM curated_answers WHERE knowledge_base_id = ? AND id = ?'),
      version: db.prepare<[string], { version: string }>(
        `SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || coalesce(sum(updated_at), 0) || ':' ||
                coalesce(sum(length(question) + length(answer) + length(also_asked)), 0) AS version
         FROM curated_answers WHERE knowledge_base_id = ?`,
      ),
    };
  }

  list(knowledgeBaseId: string): CuratedAnswerRecord[] {
    return this.stmts.list.all(knowledgeBaseId).map(fromRow);
  }

  get(knowledgeBaseId: string, id: number): CuratedAnswerRecord | null {
    const row = this.stmts.get.get(knowledgeBaseId, id);
    return row ? fromRow(row) : null;
  }

  insert(knowledgeBaseId: string, fields: CuratedAnswerFields, at: number): CuratedAnswerRecord {
    return fromRow(this.stmts.insert.get(knowledgeBaseId, fields.question, fields.answer, JSON.stringify(fields.alsoAsked), at, at)!);
  }

  update(knowledgeBaseId: string, id: number, fields: CuratedAnswerFields, at: number): CuratedAnswerRecord | null {
    const row = this.stmts.update.get(fields.question, fields.answer, JSON.stringify(fields.alsoAsked), at, knowledgeBaseId, id);
    return row ? fromRow(row) : null;
  }

  delete(knowledgeBaseId: string, id: number): boolean {
    return this.stmts.delete.run(knowledgeBaseId, id).changes > 0;
  }

  version(knowledgeBaseId: string): string {
    return this.stmts.version.get(knowledgeBaseId)!.version;
  }
}

function fromRow(row: Row): CuratedAnswerRecord {
  return {
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    question: row.question,
    answer: row.answer,
    alsoAsked: JSON.parse(row.also_asked) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
