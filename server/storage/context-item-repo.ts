import { pageKey } from '../domain/page-url.ts';
import type { Db } from './db.ts';
import type { ContextItem, ItemSummary } from '../domain/item-record.ts';
import { ITEM_SUMMARY_COLUMNS, parseSourceData } from './item-rows.ts';

type ContextItemRow = ItemSummary & { source_data: string | null };

const COLUMNS = `${ITEM_SUMMARY_COLUMNS}, source_data`;

function toContextItem({ source_data, ...summary }: ContextItemRow): ContextItem {
  return { ...summary, sourceData: parseSourceData(source_data) };
}
/** Items sharing one page's address prefix read at most (one page, its variants with queries). */
const URL_CANDIDATES = 50;

/** Finds the item the page a question was asked on shows: by its external id, or by its `data.url`. */
export class ContextItemRepo {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      byExternalId: db.prepare<[string, string], ContextItemRow>(
        `SELECT ${COLUMNS} FROM items WHERE knowledge_base_id = ? AND external_id = ? ORDER BY id LIMIT 1`,
      ),
      // LIKE is case-blind for ASCII, as a host is; the exact comparison is pageKey's, in code.
      byUrlPrefix: db.prepare<[string, string], ContextItemRow>(
        `SELECT ${COLUMNS} FROM items WHERE knowledge_base_id = ? AND url LIKE ? ESCAPE '\\' ORDER BY id LIMIT ${URL_CANDIDATES}`,
      ),
      byId: db.prepare<[number], ContextItemRow>(`SELECT ${COLUMNS} FROM items WHERE id = ?`),
    };
  }

  byExternalId(knowledgeBaseId: string, externalId: string): ContextItem | null {
    const row = this.stmts.byExternalId.get(knowledgeBaseId, externalId);
    return row ? toContextItem(row) : null;
  }

  /** The item whose `data.url` is this page (pageKey), or null. */
  byUrl(knowledgeBaseId: string, url: string): ContextItem | null {
    const key = pageKey(url);
    if (key === null) return null;
    const pattern = `${key.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const row = this.stmts.byUrlPrefix.all(knowledgeBaseId, pattern).find((r) => r.url !== null && pageKey(r.url) === key);
    return row ? toContextItem(row) : null;
  }

  byId(id: number): ContextItem | null {
    const row = this.stmts.byId.get(id);
    return row ? toContextItem(row) : null;
  }
}
