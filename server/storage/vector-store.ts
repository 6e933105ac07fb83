import { createHash } from 'node:crypto';
import type { Db } from './db.ts';

/** One vec0 table per embedding model, so vectors of different models never mix. */
function vectorTableName(embedderId: string, dimension: number): string {
  const digest = createHash('sha256').update(embedderId).digest('hex').slice(0, 10);
  return `chunk_vectors_${dimension}_${digest}`;
}

export type VectorHit = { chunkId: number; distance: number };

/**
 * Chunk vectors of one model in a sqlite-vec table, partitioned by knowledge base so a search
 * only scans its own knowledge base. Cosine distance: vectors are unit length.
 */
export class VectorStore {
  readonly table: string;
  private readonly stmts;

  constructor(db: Db, embedderId: string, readonly dimension: number) {
    this.table = vectorTableName(embedderId, dimension);
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${this.table} USING vec0 (
         chunk_id INTEGER PRIMARY KEY,
         knowledge_base_id TEXT PARTITION KEY,
         embedding float[${dimension}] distance_metric=cosine
       )`,
    );
    this.stmts = {
      insert: db.prepare<[bigint, string, Buffer]>(
        `INSERT INTO ${this.table} (chunk_id, knowledge_base_id, embedding) VALUES (?, ?, ?)`,
      ),
      remove: db.prepare<[bigint]>(`DELETE FROM ${this.table} WHERE chunk_id = ?`),
      get: db.prepare<[bigint], { embedding: Buffer }>(`SELECT embedding FROM ${this.table} WHERE chunk_id = ?`),
      knn: db.prepare<[Buffer, number, string], { chunk_id: number; distance: number }>(
        `SELECT chunk_id, distance FROM ${this.table}
         WHERE embedding MATCH ? AND k = ? AND knowledge_base_id = ? ORDER BY distance`,
      ),
    };
  }

  insert(chunkId: number, knowledgeBaseId: string, vector: Float32Array): void {
    this.stmts.insert.run(BigInt(chunkId), knowledgeBaseId, toBlob(vector));
  }

  remove(chunkId: number): void {
    this.stmts.remove.run(BigInt(chunkId));
  }

  get(chunkId: number): Float32Array | null {
    const row = this.stmts.get.get(BigInt(chunkId));
    return row ? fromBlob(row.embedding) : null;
  }

  /**
   * Exact nearest neighbours by sqlite-vec. Search uses the in-memory copy instead
   * (indexes/vector-index.ts, far faster); this is the reference the benches and tests hold it to.
   */
  nearest(knowledgeBaseId: string, query: Float32Array, k: number): VectorHit[] {
    return this.stmts.knn
      .all(toBlob(query), k, knowledgeBaseId)
      .map((row) => ({ chunkId: row.chunk_id, distance: row.distance }));
  }
}

function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * The vector a blob holds. better-sqlite3 gives each blob a Buffer of its own, aligned for floats:
 * it is read in place. Copying it cost a second allocation per vector, and loading an index reads
 * tens of thousands, whose freed memory the process kept (docs/benchmarks.md, "Cold start and memory").
 */
export function fromBlob(blob: Buffer): Float32Array {
  if (blob.byteOffset % Float32Array.BYTES_PER_ELEMENT === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  const copy = new Uint8Array(blob);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}
