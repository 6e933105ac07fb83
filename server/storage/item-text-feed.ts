import { ChangeLogFeed } from './change-log-feed.ts';
import type { Db } from './db.ts';

/** What an item's keyword row (items_fts) is made of. */
export type ItemText = { id: number; knowledgeBaseId: string; sourceType: string; title: string; text: string };

type ItemTextRow = { id: number; knowledge_base_id: string; source_type: string; title: string; text: string };

/**
 * Items of English knowledge bases only: the in-memory index mirrors items_fts, and the keyword
 * rows of other languages are read by FTS5 itself (knowledge-base-languages.ts logs a change of
 * every item of a knowledge base whose language moves from or to English).
 */
const SELECT = `SELECT id, knowledge_base_id, source_type, title, text FROM items
  WHERE knowledge_base_id NOT IN (SELECT knowledge_base_id FROM knowledge_base_languages WHERE language <> 'en')`;

/** The English items' texts and their changes (the item_changes log), for KeywordIndex. */
export function itemTextFeed(db: Db): ChangeLogFeed<ItemTextRow, ItemText> {
  return new ChangeLogFeed(db, {
    log: 'item_changes',
    key: 'item_id',
    all: SELECT,
    byKey: `${SELECT} AND id = ?`,
    toEntry: (row) => ({
      id: row.id,
      knowledgeBaseId: row.knowledge_base_id,
      sourceType: row.source_type,
      title: row.title,
      text: row.text,
    }),
  });
}
