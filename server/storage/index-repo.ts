import type { Db } from './db.ts';
import type { ItemIdentity } from '../domain/job-record.ts';
import { KeywordRows } from './keyword-rows.ts';
import type { VectorStore } from './vector-store.ts';

export type IndexedChunk = {
  position: number;
  text: string;
  tokenCount: number;
  embedHash: string;
  vector: Float32Array;
  /** A file's passage: its PDF page, or the headings above it. */
  page?: number | undefined;
  section?: string | undefined;
  /** A file's passage: the paragraph of its document it comes from (the parts of one long paragraph share it). */
  paragraph?: number | undefined;
};

export type IndexedItem = ItemIdentity & {
  sourceType: string;
  title: string;
  content: string;
  text: string;
  url: string | null;
  sourceData: string | null;
  contentHash: string;
  seq: number;
  embedderId: string;
  chunks: IndexedChunk[];
  /** The uploaded file the item was extracted from (files as knowledge), else absent. */
  originalSha256?: string | null;
};

export type StoredVersion = {
  itemId: number | null;
  contentHash: string | null;
  seq: number;
  embedderId: string | null;
  /** The original file the stored version was extracted from, if any. */
  originalSha256: string | null;
};

/**
 * Writes the searchable state of items: the item row, its chunks, both keyword indexes and the
 * vectors, always replaced together in one transaction with the job's completion.
 */
export class IndexRepo {
  private readonly stmts;
  private readonly cleaner: IndexCleaner;
  private readonly keywordRows: KeywordRows;

  constructor(
    db: Db,
    private readonly vectors: VectorStore,
  ) {
    this.keywordRows = new KeywordRows(db);
    this.cleaner = new IndexCleaner(db, this.keywordRows);
    this.stmts = {
      version: db.prepare<
        [ItemIdentity],
        { id: number | null; content_hash: string | null; seq: number; embedder_id: string | null; original_sha256: string | null }
      >(
        `SELECT i.id, i.content_hash, max(coalesce(i.seq, 0), coalesce(t.seq, 0)) AS seq, i.embedder_id, i.original_sha256
         FROM (SELECT @knowledgeBaseId AS kb, @integrationId AS integ, @externalId AS ext) k
         LEFT JOIN items i ON i.knowledge_base_id = k.kb AND i.integration_id = k.integ AND i.external_id = k.ext
         LEFT JOIN item_tombstones t ON t.knowledge_base_id = k.kb AND t.integration_id = k.integ AND t.external_id = k.ext`,
      ),
      chunksOf: db.prepare<[number], { id: number; text: string }>('SELECT id, text FROM chunks WHERE item_id = ?'),
      cachedVector: db.prepare<[string, string], { id: number }>(
        `SELECT c.id FROM chunks c JOIN items i ON i.id = c.item_id
         WHERE c.embed_hash = ? AND i.embedder_id = ? LIMIT 1`,
      ),
      upsertItem: db.prepare(
        `INSERT INTO items (knowledge_base_id, integration_id, external_id, source_type, title, content, text, url,
           source_data, content_hash, seq, chunk_count, embedder_id, original_sha256, created_at, updated_at)
         VALUES (@knowledgeBaseId, @integrationId, @externalId, @sourceType, @title, @content, @text, @url,
           @sourceData, @contentHash, @seq, @chunkCount, @embedderId, @originalSha256, @now, @now)
         ON CONFLICT (knowledge_base_id, integration_id, external_id) DO UPDATE SET
           source_type = excluded.source_type, title = excluded.title, content = excluded.content,
           text = excluded.text, url = excluded.url, source_data = excluded.source_data,
           content_hash = excluded.content_hash, seq = excluded.seq, chunk_count = excluded.chunk_count,
           embedder_id = excluded.embedder_id, original_sha256 = excluded.original_sha256, updated_at = excluded.updated_at
         RETURNING id`,
      ),
      insertChunk: db.prepare<[number, number, string, number, string, number | null, string | null, number | null]>(
        'INSERT INTO chunks (item_id, position, text, token_count, embed_hash, page, section, paragraph) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
    };
  }

  /** The newest version this item has seen: its indexed content or its deletion. */
  storedVersion(identity: ItemIdentity): StoredVersion {
    const row = this.stmts.version.get(pick(identity))!;
    return {
      itemId: row.id,
      contentHash: row.content_hash,
      seq: row.seq,
      embedderId: row.embedder_id,
      originalSha256: row.original_sha256,
    };
  }

  /** A vector already computed by this model for the same embedded text, if any. */
  cachedVector(embedHash: string, embedderId: string): Float32Array | null {
    const hit = this.stmts.cachedVector.get(embedHash, embedderId);
    return hit ? this.vectors.get(hit.id) : null;
  }

  /**
   * Replaces the item's indexed state. Must run inside the caller's transaction (together with the
   * job's completion); returns false without writing when a newer version is already stored.
   */
  writeItem(item: IndexedItem, now: number): boolean {
    const stored = this.storedVersion(item);
    if (stored.seq >= item.seq) return false;
    if (stored.itemId !== null) this.cleaner.removeChunks(stored.itemId);
    const { id: itemId } = this.stmts.upsertItem.get({
      ...pick(item),
      sourceType: item.sourceType,
      title: item.title,
      content: item.content,
      text: item.text,
      url: item.url,
      sourceData: item.sourceData,
      contentHash: item.contentHash,
      seq: item.seq,
      chunkCount: item.chunks.length,
      embedderId: item.embedderId,
      originalSha256: item.originalSha256 ?? null,
      now,
    }) as { id: number };
    const keywordChunks = item.chunks.map((chunk) => {
      const chunkId = Number(
        this.stmts.insertChunk.run(
          itemId, chunk.position, chunk.text, chunk.tokenCount, chunk.embedHash, chunk.page ?? null, chunk.section ?? null, chunk.paragraph ?? null,
        ).lastInsertRowid,
      );
      this.vectors.insert(chunkId, item.knowledgeBaseId, chunk.vector);
      return { id: chunkId, text: chunk.text };
    });
    this.keywordRows.write(
      { id: itemId, knowledgeBaseId: item.knowledgeBaseId, sourceType: item.sourceType, title: item.title, text: item.text },
      keywordChunks,
    );
    return true;
  }
}

function pick(identity: ItemIdentity): ItemIdentity {
  return { knowledgeBaseId: identity.knowledgeBaseId, integrationId: identity.integrationId, externalId: identity.externalId };
}

/** Removes indexed items: rows, chunks, keyword rows (in each language of the knowledge base) and the vectors of every model. */
export class IndexCleaner {
  private readonly stmts;
  private readonly vectorDeletes = new Map<string, (chunkId: number) => void>();

  constructor(
    private readonly db: Db,
    private readonly keywordRows = new KeywordRows(db),
  ) {
    this.stmts = {
      itemId: db.prepare<[ItemIdentity], { id: number }>(
        `SELECT id FROM items
         WHERE knowledge_base_id = @knowledgeBaseId AND integration_id = @integrationId AND external_id = @externalId`,
      ),
      chunkIds: db.prepare<[number], { id: number }>('SELECT id FROM chunks WHERE item_id = ?'),
      deleteItem: db.prepare<[number]>('DELETE FROM items WHERE id = ?'),
      deleteChunks: db.prepare<[number]>('DELETE FROM chunks WHERE item_id = ?'),
      vectorTables: db.prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE name LIKE 'chunk\\_vectors\\_%' ESCAPE '\\' AND sql LIKE '%vec0%'",
      ),
    };
  }

  /** Inside the caller's transaction. */
  removeItem(identity: ItemIdentity): boolean {
    const existing = this.stmts.itemId.get(pick(identity));
    if (!existing) return false;
    this.removeChunks(existing.id);
    this.stmts.deleteItem.run(existing.id);
    return true;
  }

  removeChunks(itemId: number): void {
    const deletes = this.stmts.vectorTables.all().map((table) => this.vectorDelete(table.name));
    const chunkIds = this.stmts.chunkIds.all(itemId).map((row) => row.id);
    for (const id of chunkIds) for (const remove of deletes) remove(id);
    this.keywordRows.remove(itemId, chunkIds);
    this.stmts.deleteChunks.run(itemId);
  }

  private vectorDelete(table: string): (chunkId: number) => void {
    let remove = this.vectorDeletes.get(table);
    if (!remove) {
      const stmt = this.db.prepare<[bigint]>(`DELETE FROM ${table} WHERE chunk_id = ?`);
      remove = (chunkId) => stmt.run(BigInt(chunkId));
      this.vectorDeletes.set(table, remove);
    }
    return remove;
  }
}
