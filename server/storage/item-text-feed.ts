import type { KeywordLanguage } from '../../common/contract/knowledge.ts';
import { ChangeLogFeed } from './change-log-feed.ts';
import type { Db } from './db.ts';

/** What an item's keyword row (items_fts) is made of. */
export type ItemText = { id: number; knowledgeBaseId: string; sourceType: string; title: string; text: string };

type ItemTextRow = { id: number; knowledge_base_id: string; source_type: string; title: string; text: string };

const COLUMNS = 'SELECT id, knowledge_base_id, source_type, title, text FROM items';

/**
 * The items of the knowledge bases whose keyword index is in `language` (knowledge_base_languages;
 * no row is English): each language's in-memory index mirrors its own keyword tables.
 * knowledge-base-languages.ts logs a change of every item of a knowledge base whose language
 * changes, so the index of the old language lets it go and that of the new one takes it.
 */
function selectIn(language: KeywordLanguage): string {
  if (!/^[a-z]{2}$/.test(language)) throw new Error(`not a language code: ${language}`);
  return language === 'en'
    ? `${COLUMNS} WHERE knowledge_base_id NOT IN (SELECT knowledge_base_id FROM knowledge_base_languages WHERE language <> 'en')`
    : `${COLUMNS} WHERE knowledge_base_id IN (SELECT knowledge_base_id FROM knowledge_base_languages WHERE language = '${language}')`;
}

/** The texts of the items in a keyword language and their changes (the item_changes log), for KeywordIndex. */
export function itemTextFeed(db: Db, language: KeywordLanguage = 'en'): ChangeLogFeed<ItemTextRow, ItemText> {
  const SELECT = selectIn(language);
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
