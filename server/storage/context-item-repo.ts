import { pageKey } from '../domain/page-url.ts';
import type { Db } from './db.ts';
import type { ItemSummaryRow } from './search-repo.ts';

/** An item an ask's context names, with what its product card shows. */
export type ContextItemRow = ItemSummaryRow & { source_data: string | null };

const COLUMNS = 'id, knowledge_base_id, integration_id, external_id, source_type, title, url, updated_at, chunk_count, source_data';
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

  byExternalId(knowledgeBaseId: string, externalId: string): ContextItemRow | null {
    return this.stmts.byExternalId.get(knowledgeBaseId, externalId) ?? null;
  }

  /** The item whose `data.url` is this page (pageKey), or null. */
  byUrl(knowledgeBaseId: string, url: string): ContextItemRow | null {
    const key = pageKey(url);
    if (key === null) return null;
    const pattern = `${key.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.stmts.byUrlPrefix.all(knowledgeBaseId, pattern).find((row) => row.url !== null && pageKey(row.url) === key) ?? null;
  }

  byId(id: number): ContextItemRow | null {
    return this.stmts.byId.get(id) ?? null;
  }
}
