import type { KeywordLanguage } from '../../common/contract/knowledge.ts';
import { isAnalyzed, keywordText } from '../language/keyword-language.ts';
import type { Db } from './db.ts';
import { scopeColumn } from './keyword-scope.ts';

/** The keyword tables of a language: English keeps the original pair (storage/migrations/0006-keyword-scope.sql). */
export function keywordTables(language: KeywordLanguage): { items: string; chunks: string } {
  return language === 'en' ? { items: 'items_fts', chunks: 'chunks_fts' } : { items: `items_fts_${language}`, chunks: `chunks_fts_${language}` };
}

/** What an item's keyword rows are made of. */
export type KeywordItem = { id: number; knowledgeBaseId: string; sourceType: string; title: string; text: string };
export type KeywordChunk = { id: number; text: string };

type Statements = {
  insertItem: (id: number, title: string, text: string, scope: string) => void;
  insertChunk: (id: number, title: string, text: string, scope: string) => void;
  removeItem: (id: number) => void;
  removeChunk: (id: number) => void;
};

/**
 * Writes and removes the keyword rows (items_fts, chunks_fts and the other languages' pairs) of
 * items, in the languages their knowledge base is indexed in: its language, and while a re-index
 * runs the language it moves to (knowledge-base-languages.ts). English rows hold the text as
 * written (FTS5 stems it); other languages' rows hold its terms (server/language/keyword-language.ts).
 * Inside the caller's transaction.
 */
export class KeywordRows {
  private readonly byLanguage = new Map<KeywordLanguage, Statements>();
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      languagesOf: db.prepare<[string], { language: KeywordLanguage; target_language: KeywordLanguage | null }>(
        'SELECT language, target_language FROM knowledge_base_languages WHERE knowledge_base_id = ?',
      ),
      knowledgeBaseOf: db.prepare<[number], { knowledge_base_id: string }>('SELECT knowledge_base_id FROM items WHERE id = ?'),
    };
  }

  /** The languages a knowledge base's rows are written in: its own, then the one it moves to. */
  languagesOf(knowledgeBaseId: string): KeywordLanguage[] {
    const row = this.stmts.languagesOf.get(knowledgeBaseId);
    if (!row) return ['en'];
    return row.target_language ? [row.language, row.target_language] : [row.language];
  }

  /** Adds the rows of an item and its chunks in every language of its knowledge base. */
  write(item: KeywordItem, chunks: KeywordChunk[]): void {
    for (const language of this.languagesOf(item.knowledgeBaseId)) this.writeIn(language, item, chunks);
  }

  /** Removes the rows of an item (by id, still in `items`) and of its chunks, in every language of its knowledge base. */
  remove(itemId: number, chunkIds: number[]): void {
    const owner = this.stmts.knowledgeBaseOf.get(itemId);
    const languages = owner ? this.languagesOf(owner.knowledge_base_id) : ['en' as const];
    for (const language of languages) this.removeIn(language, itemId, chunkIds);
  }

  /** The rows of an item and its chunks in one language (what a re-index writes). */
  writeIn(language: KeywordLanguage, item: KeywordItem, chunks: KeywordChunk[]): void {
    const stmts = this.statements(language);
    const read = isAnalyzed(language) ? (text: string) => keywordText(language, text) : (text: string) => text;
    const title = read(item.title);
    stmts.insertItem(item.id, title, read(item.text), scopeColumn(item.knowledgeBaseId, item.sourceType));
    const chunkScope = scopeColumn(item.knowledgeBaseId, item.sourceType, item.id);
    for (const chunk of chunks) stmts.insertChunk(chunk.id, title, read(chunk.text), chunkScope);
  }

  removeIn(language: KeywordLanguage, itemId: number, chunkIds: number[]): void {
    const stmts = this.statements(language);
    for (const id of chunkIds) stmts.removeChunk(id);
    stmts.removeItem(itemId);
  }

  private statements(language: KeywordLanguage): Statements {
    let stmts = this.byLanguage.get(language);
    if (!stmts) {
      const { items, chunks } = keywordTables(language);
      const insertItem = this.db.prepare<[number, string, string, string]>(`INSERT INTO ${items} (rowid, title, text, scope) VALUES (?, ?, ?, ?)`);
      const insertChunk = this.db.prepare<[number, string, string, string]>(`INSERT INTO ${chunks} (rowid, title, text, scope) VALUES (?, ?, ?, ?)`);
      const removeItem = this.db.prepare<[number]>(`DELETE FROM ${items} WHERE rowid = ?`);
      const removeChunk = this.db.prepare<[number]>(`DELETE FROM ${chunks} WHERE rowid = ?`);
      stmts = {
        insertItem: (...row) => void insertItem.run(...row),
        insertChunk: (...row) => void insertChunk.run(...row),
        removeItem: (id) => void removeItem.run(id),
        removeChunk: (id) => void removeChunk.run(id),
      };
      this.byLanguage.set(language, stmts);
    }
    return stmts;
  }
}
