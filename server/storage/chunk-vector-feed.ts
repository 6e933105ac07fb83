import type { Db } from './db.ts';
import { fromBlob } from './vector-store.ts';

/** A chunk's vector with what a search filters it by. */
export type ChunkVector = {
  chunkId: number;
  itemId: number;
  knowledgeBaseId: string;
  sourceType: string;
  vector: Float32Array;
};

/** One entry of the chunk change log: the chunk as it is now, or null when it is gone. */
export type ChunkChange = { seq: number; chunkId: number; current: ChunkVector | null };

type VectorRow = { chunk_id: number; item_id: number; knowledge_base_id: string; source_type: string; embedding: Buffer };

/**
 * Reads the vectors of one model's table for an in-memory index: all of them at once, then what
 * changed since (the chunk_changes log the chunk triggers write, in commit order).
 */
export class ChunkVectorFeed {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    vectorTable: string,
  ) {
    this.stmts = {
      lastSeq: db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM chunk_changes'),
      firstSeq: db.prepare<[], { seq: number | null }>('SELECT min(seq) AS seq FROM chunk_changes'),
      all: db.prepare<[], VectorRow>(
        `SELECT v.chunk_id, c.item_id, i.knowledge_base_id, i.source_type, v.embedding
         FROM ${vectorTable} v CROSS JOIN chunks c ON c.id = v.chunk_id CROSS JOIN items i ON i.id = c.item_id`,
      ),
      changes: db.prepare<[number], { seq: number; chunk_id: number }>(
        'SELECT seq, chunk_id FROM chunk_changes WHERE seq > ? ORDER BY seq',
      ),
      current: db.prepare<[bigint], VectorRow>(
        `SELECT v.chunk_id, c.item_id, i.knowledge_base_id, i.source_type, v.embedding
         FROM ${vectorTable} v CROSS JOIN chunks c ON c.id = v.chunk_id CROSS JOIN items i ON i.id = c.item_id
         WHERE v.chunk_id = ?`,
      ),
    };
  }

  /**
   * Every vector of the table, read in one consistent snapshot that may span several turns of the
   * event loop, and the log position it reflects. Call `close` when done (or to give up).
   */
  snapshot(): { seq: number; chunks: Iterator<ChunkVector>; close(): void } {
    this.db.exec('BEGIN');
    const seq = this.stmts.lastSeq.get()!.seq ?? 0;
    const rows = this.stmts.all.iterate();
    let open = true;
    return {
      seq,
      chunks: {
        next: () => {
          const row = rows.next();
          return row.done ? { done: true, value: undefined } : { done: false, value: toChunkVector(row.value) };
        },
      },
      close: () => {
        if (!open) return;
        open = false;
        rows.return?.();
        this.db.exec('COMMIT');
      },
    };
  }

  /**
   * The changes after `seq`, each with the chunk's current vector (a chunk written then removed
   * again reads as removed), or null when the log no longer reaches back to `seq`.
   */
  changesSince(seq: number): ChunkChange[] | null {
    // The common case, nothing new, costs one index probe; the rest reads in one snapshot.
    if ((this.stmts.lastSeq.get()!.seq ?? 0) <= seq) return [];
    return this.db.transaction(() => {
      if ((this.stmts.firstSeq.get()!.seq ?? 0) > seq + 1) return null;
      return this.stmts.changes.all(seq).map((change) => {
        const row = this.stmts.current.get(BigInt(change.chunk_id));
        return { seq: change.seq, chunkId: change.chunk_id, current: row ? toChunkVector(row) : null };
      });
    })();
  }
}

function toChunkVector(row: VectorRow): ChunkVector {
  return {
    chunkId: row.chunk_id,
    itemId: row.item_id,
    knowledgeBaseId: row.knowledge_base_id,
    sourceType: row.source_type,
    vector: fromBlob(row.embedding),
  };
}
