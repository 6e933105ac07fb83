import { ChangeLogFeed } from './change-log-feed.ts';
import type { Db } from './db.ts';

/** What an item's keyword row (items_fts) is made of. */
export type ItemText = { id: number; knowledgeBaseId: string; sourceType: string; title: string; text: string };

type ItemTextRow = { id: number; knowledge_base_id: string; source_type: string; title: string; text: string };

const SELECT = 'SELECT id, knowledge_base_id, source_type, title, text FROM items';

/** The items' texts and their changes (the item_changes log), for KeywordIndex. */
export function itemTextFeed(db: Db): ChangeLogFeed<ItemTextRow, ItemText> {
  return new ChangeLogFeed(db, {
    log: 'item_changes',
    key: 'item_id',
    all: SELECT,
    byKey: `${SELECT} WHERE id = ?`,
    toEntry: (row) => ({
      id: row.id,
      knowledgeBaseId: row.knowledge_base_id,
      sourceType: row.source_type,
      title: row.title,
      text: row.text,
    }),
  });
}
