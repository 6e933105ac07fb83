import type { KeywordIndexState, KeywordLanguage } from '../../common/contract/knowledge.ts';
import type { Db } from './db.ts';
import { type KeywordItem, KeywordRows, keywordTables } from './keyword-rows.ts';

type LanguageRow = {
  language: KeywordLanguage;
  target_language: KeywordLanguage | null;
  cursor: number;
  done: number;
  total: number;
};

/**
 * Each knowledge base's keyword language and the re-index that moves it to another one
 * (docs/retrieval.md, "Languages"). No row means English. A re-index writes the new language's
 * keyword rows of the knowledge base's items in batches, in item id order (`reindexStep`), while
 * searches keep reading the old language's rows and the pipeline writes both (keyword-rows.ts);
 * its last step switches the language and drops the old rows in one transaction. Every step is
 * its own short transaction, so pushes and searches go on between them, and a re-index cut short
 * by a stop goes on from its cursor at the next start.
 */
export class KnowledgeBaseLanguages {
  private readonly stmts;
  private readonly rows: KeywordRows;

  constructor(private readonly db: Db) {
    this.rows = new KeywordRows(db);
    this.stmts = {
      get: db.prepare<[string], LanguageRow>(
        'SELECT language, target_language, cursor, done, total FROM knowledge_base_languages WHERE knowledge_base_id = ?',
      ),
      upsert: db.prepare<[{ kb: string; language: string; target: string | null; total: number }]>(
        `INSERT INTO knowledge_base_languages (knowledge_base_id, language, target_language, cursor, done, total)
         VALUES (@kb, @language, @target, 0, 0, @total)
         ON CONFLICT (knowledge_base_id) DO UPDATE SET language = excluded.language,
           target_language = excluded.target_language, cursor = 0, done = 0, total = excluded.total`,
      ),
      remove: db.prepare<[string]>('DELETE FROM knowledge_base_languages WHERE knowledge_base_id = ?'),
      advance: db.prepare<[number, number, string]>(
        'UPDATE knowledge_base_languages SET cursor = ?, done = done + ? WHERE knowledge_base_id = ?',
      ),
      reindexing: db.prepare<[], { knowledge_base_id: string }>(
        'SELECT knowledge_base_id FROM knowledge_base_languages WHERE target_language IS NOT NULL ORDER BY knowledge_base_id',
      ),
      itemCount: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM items WHERE knowledge_base_id = ?'),
      itemsAfter: db.prepare<[string, number, number], { id: number; knowledge_base_id: string; source_type: string; title: string; text: string }>(
        `SELECT id, knowledge_base_id, source_type, title, text FROM items
         WHERE knowledge_base_id = ? AND id > ? ORDER BY id LIMIT ?`,
      ),
      chunksOf: db.prepare<[string], { id: number; item_id: number; text: string }>(
        'SELECT id, item_id, text FROM chunks WHERE item_id IN (SELECT value FROM json_each(?)) ORDER BY item_id, position',
      ),
      // Each language's in-memory keyword index (indexes/keyword-index.ts) holds the knowledge
      // bases in that language: their items' changes tell them to take one in or let it go.
      itemChanges: db.prepare<[string]>('INSERT INTO item_changes (item_id) SELECT id FROM items WHERE knowledge_base_id = ?'),
    };
  }

  /** The keyword index of a knowledge base: the language searches read, and a re-index under way. */
  state(knowledgeBaseId: string): KeywordIndexState {
    const row = this.stmts.get.get(knowledgeBaseId);
    if (!row) return { language: 'en', reindexing: null };
    const reindexing = row.target_language ? { language: row.target_language, done: row.done, total: row.total } : null;
    return { language: row.language, reindexing };
  }

  /** The language the knowledge base was asked to be in: the one it moves to, else its own. */
  requested(knowledgeBaseId: string): KeywordLanguage {
    const state = this.state(knowledgeBaseId);
    return state.reindexing?.language ?? state.language;
  }

  /**
   * Asks for the knowledge base in `language`: a re-index into it starts (replacing one into
   * another language, whose rows are dropped), or, back to the language searches read, the
   * re-index under way stops. Returns true when a re-index now has work to do.
   */
  request(knowledgeBaseId: string, language: KeywordLanguage): boolean {
    return this.db
      .transaction(() => {
        const row = this.stmts.get.get(knowledgeBaseId);
        const current = row?.language ?? 'en';
        const target = row?.target_language ?? null;
        if ((target ?? current) === language) return target !== null;
        if (target) this.dropRows(knowledgeBaseId, target);
        if (language === current) {
          if (current === 'en') this.stmts.remove.run(knowledgeBaseId);
          else this.stmts.upsert.run({ kb: knowledgeBaseId, language: current, target: null, total: 0 });
          return false;
        }
        const total = this.stmts.itemCount.get(knowledgeBaseId)!.n;
        this.stmts.upsert.run({ kb: knowledgeBaseId, language: current, target: language, total });
        return true;
      })
      .immediate();
  }

  /** Knowledge bases with a re-index under way (to go on with after a start). */
  reindexing(): string[] {
    return this.stmts.reindexing.all().map((r) => r.knowledge_base_id);
  }

  /**
   * Writes the target language's rows of the next `batch` items of a re-index, or, when none is
   * left, switches the knowledge base to it. Returns the state after the step (reindexing null:
   * finished, or there was no re-index).
   */
  reindexStep(knowledgeBaseId: string, batch: number): KeywordIndexState {
    this.db
      .transaction(() => {
        const row = this.stmts.get.get(knowledgeBaseId);
        if (!row?.target_language) return;
        const target = row.target_language;
        const items = this.stmts.itemsAfter.all(knowledgeBaseId, row.cursor, batch);
        if (items.length === 0) return this.switchLanguage(knowledgeBaseId, row.language, target);
        const chunks = new Map<number, Array<{ id: number; text: string }>>();
        for (const chunk of this.stmts.chunksOf.all(JSON.stringify(items.map((i) => i.id)))) {
          const list = chunks.get(chunk.item_id);
          if (list) list.push(chunk);
          else chunks.set(chunk.item_id, [chunk]);
        }
        for (const row of items) {
          const item: KeywordItem = { id: row.id, knowledgeBaseId, sourceType: row.source_type, title: row.title, text: row.text };
          const itemChunks = chunks.get(row.id) ?? [];
          // The pipeline may have written this item's rows in the target already: rewritten alike.
          this.rows.removeIn(target, row.id, itemChunks.map((c) => c.id));
          this.rows.writeIn(target, item, itemChunks);
        }
        this.stmts.advance.run(items.at(-1)!.id, items.length, knowledgeBaseId);
      })
      .immediate();
    return this.state(knowledgeBaseId);
  }

  private switchLanguage(knowledgeBaseId: string, from: KeywordLanguage, to: KeywordLanguage): void {
    this.dropRows(knowledgeBaseId, from);
    if (to === 'en') this.stmts.remove.run(knowledgeBaseId);
    else this.stmts.upsert.run({ kb: knowledgeBaseId, language: to, target: null, total: 0 });
    this.stmts.itemChanges.run(knowledgeBaseId);
  }

  /** Removes a language's keyword rows of every item of the knowledge base. */
  private dropRows(knowledgeBaseId: string, language: KeywordLanguage): void {
    const { items, chunks } = keywordTables(language);
    this.db
      .prepare(`DELETE FROM ${chunks} WHERE rowid IN (SELECT c.id FROM chunks c JOIN items i ON i.id = c.item_id WHERE i.knowledge_base_id = ?)`)
      .run(knowledgeBaseId);
    this.db.prepare(`DELETE FROM ${items} WHERE rowid IN (SELECT id FROM items WHERE knowledge_base_id = ?)`).run(knowledgeBaseId);
  }
}
