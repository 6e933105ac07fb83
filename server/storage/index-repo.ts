import type { Db } from './db.ts';
import type { ItemIdentity } from '../domain/job-record.ts';
import { KeywordRows } from './keyword-rows.ts';
import type { VectorStore } from './vector-store.ts';

/** How far an item's indexing has come: its text searchable, or its vectors too. */
export type ItemIndexing = 'text' | 'complete';

/** A chunk as the text phase writes it: no vector yet. */
export type TextChunk = {
  position: number;
  text: string;
  tokenCount: number;
  embedHash: string;
  /** A file's passage: its PDF page, or the headings above it. */
  page?: number | undefined;
  section?: string | undefined;
  /** A file's passage: the paragraph of its document it comes from (the parts of one long paragraph share it). */
  paragraph?: number | undefined;
};

export type IndexedChunk = TextChunk & { vector: Float32Array };

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

/** An item as its text phase writes it: searchable by keyword, its chunks' vectors still to come. */
export type TextItem = Omit<IndexedItem, 'chunks'> & { chunks: TextChunk[] };

export type StoredVersion = {
  itemId: number | null;
  contentHash: string | null;
  seq: number;
  embedderId: string | null;
  /** The original file the stored version was extracted from, if any. */
  originalSha256: string | null;
  /** 'text' while the stored version's chunks wait for their vectors (items.indexing); null when none is stored. */
  indexing: ItemIndexing | null;
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
        {
          id: number | null;
          content_hash: string | null;
          seq: number;
          embedder_id: string | null;
          original_sha256: string | null;
          indexing: ItemIndexing | null;
        }
      >(
        `SELECT i.id, i.content_hash, max(coalesce(i.seq, 0), coalesce(t.seq, 0)) AS seq, i.embedder_id, i.original_sha256, i.indexing
         FROM (SELECT @knowledgeBaseId AS kb, @integrationId AS integ, @externalId AS ext) k
         LEFT JOIN items i ON i.knowledge_base_id = k.kb AND i.integration_id = k.integ AND i.external_id = k.ext
         LEFT JOIN item_tombstones t ON t.knowledge_base_id = k.kb AND t.integration_id = k.integ AND t.external_id = k.ext`,
      ),
      chunksOf: db.prepare<[number], { id: number; position: number; embed_hash: string }>(
        'SELECT id, position, embed_hash FROM chunks WHERE item_id = ? ORDER BY position',
      ),
      // Items of the text phase may have chunks without a vector: only complete ones are asked.
      cachedVector: db.prepare<[string, string], { id: number }>(
        `SELECT c.id FROM chunks c JOIN items i ON i.id = c.item_id
         WHERE c.embed_hash = ? AND i.embedder_id = ? AND i.indexing = 'complete' LIMIT 1`,
      ),
      upsertItemText: db.prepare(
        `INSERT INTO items (knowledge_base_id, integration_id, external_id, source_type, title, content, text, url,
           source_data, content_hash, seq, chunk_count, embedder_id, original_sha256, indexing, created_at, updated_at)
         VALUES (@knowledgeBaseId, @integrationId, @externalId, @sourceType, @title, @content, @text, @url,
           @sourceData, @contentHash, @seq, @chunkCount, @embedderId, @originalSha256, @indexing, @now, @now)
         ON CONFLICT (knowledge_base_id, integration_id, external_id) DO UPDATE SET
           source_type = excluded.source_type, title = excluded.title, content = excluded.content,
           text = excluded.text, url = excluded.url, source_data = excluded.source_data,
           content_hash = excluded.content_hash, seq = excluded.seq, chunk_count = excluded.chunk_count,
           embedder_id = excluded.embedder_id, original_sha256 = excluded.original_sha256,
           indexing = excluded.indexing, updated_at = excluded.updated_at
         RETURNING id`,
      ),
      completeItem: db.prepare<[string, number, number, number]>(
        "UPDATE items SET indexing = 'complete', embedder_id = ?, seq = ?, updated_at = ? WHERE id = ?",
      ),
      // The in-memory vector index follows chunk_changes, whose triggers see chunk rows only: a
      // vector added to a chunk written by the text phase is logged here.
      logVector: db.prepare<[number]>('INSERT INTO chunk_changes (chunk_id, removed) VALUES (?, 0)'),
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
      indexing: row.indexing,
    };
  }

  /** A vector already computed by this model for the same embedded text, if any. */
  cachedVector(embedHash: string, embedderId: string): Float32Array | null {
    const hit = this.stmts.cachedVector.get(embedHash, embedderId);
    return hit ? this.vectors.get(hit.id) : null;
  }

  /**
   * Replaces the item's indexed state, vectors included. Must run inside the caller's transaction
   * (together with the job's completion); returns false without writing when a newer version is
   * already stored, or this very version complete. When the text phase already wrote this content
   * with the same chunks, only the vectors are added: its keyword rows stay as they are, and its
   * chunks are not counted as embedded twice (usage_chunk_embedded).
   */
  writeItem(item: IndexedItem, now: number): boolean {
    const stored = this.storedVersion(item);
    if (stored.seq > item.seq || (stored.seq === item.seq && stored.indexing !== 'text')) return false;
    const sameText = stored.indexing === 'text' && stored.contentHash === item.contentHash;
    if (sameText && stored.itemId !== null && this.addVectors(stored.itemId, item, now)) return true;
    this.replace(stored, item, 'complete', now);
    return true;
  }

  /**
   * The text phase: the item's row, chunks and keyword rows, so keyword search finds it at once;
   * its vectors follow (`writeItem`). An older version's vectors go with its chunks, except those
   * of passages the new version keeps unchanged, which carry over to its chunks (the embedding
   * pass then embeds only what changed). Inside the caller's transaction; false when this version
   * or a newer one is already stored.
   */
  writeText(item: TextItem, now: number): boolean {
    const stored = this.storedVersion(item);
    if (stored.seq >= item.seq) return false;
    const kept = new Map<string, Float32Array>();
    if (stored.itemId !== null) {
      for (const chunk of this.stmts.chunksOf.all(stored.itemId)) {
        const vector = this.vectors.get(chunk.id);
        if (vector) kept.set(chunk.embed_hash, vector.slice());
      }
    }
    const written = this.replace(stored, item, 'text', now);
    written.forEach((chunkId, i) => {
      const vector = kept.get(item.chunks[i]!.embedHash);
      if (vector) this.vectors.insert(chunkId, item.knowledgeBaseId, vector);
    });
    return true;
  }

  /** The vectors of the item's chunks that have one already (kept from its previous version), by embed hash. */
  storedVectors(itemId: number): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    for (const chunk of this.stmts.chunksOf.all(itemId)) {
      const vector = this.vectors.get(chunk.id);
      if (vector) found.set(chunk.embed_hash, vector);
    }
    return found;
  }

  /**
   * Completes the text phase's version in place when its chunks are the ones given: each chunk
   * gets its vector (unless one carried over), the item is marked complete at the given seq. False when the chunks
   * differ (the caller rewrites the item).
   */
  private addVectors(itemId: number, item: IndexedItem, now: number): boolean {
    const stored = this.stmts.chunksOf.all(itemId);
    if (stored.length !== item.chunks.length || stored.some((c, i) => c.position !== item.chunks[i]!.position || c.embed_hash !== item.chunks[i]!.embedHash)) {
      return false;
    }
    stored.forEach((chunk, i) => {
      if (this.vectors.get(chunk.id)) return;
      this.vectors.insert(chunk.id, item.knowledgeBaseId, item.chunks[i]!.vector);
      this.stmts.logVector.run(chunk.id);
    });
    this.stmts.completeItem.run(item.embedderId, item.seq, now, itemId);
    return true;
  }

  /** Writes the item row, chunks (with their vectors when given) and keyword rows; returns the chunk ids in order. */
  private replace(stored: StoredVersion, item: IndexedItem | TextItem, indexing: ItemIndexing, now: number): number[] {
    if (stored.itemId !== null) this.cleaner.removeChunks(stored.itemId);
    const { id: itemId } = this.stmts.upsertItemText.get({
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
      indexing,
      now,
    }) as { id: number };
    const keywordChunks = item.chunks.map((chunk) => {
      const chunkId = Number(
        this.stmts.insertChunk.run(
          itemId, chunk.position, chunk.text, chunk.tokenCount, chunk.embedHash, chunk.page ?? null, chunk.section ?? null, chunk.paragraph ?? null,
        ).lastInsertRowid,
      );
      if ('vector' in chunk) this.vectors.insert(chunkId, item.knowledgeBaseId, chunk.vector);
      return { id: chunkId, text: chunk.text };
    });
    this.keywordRows.write(
      { id: itemId, knowledgeBaseId: item.knowledgeBaseId, sourceType: item.sourceType, title: item.title, text: item.text },
      keywordChunks,
    );
    return keywordChunks.map((chunk) => chunk.id);
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
