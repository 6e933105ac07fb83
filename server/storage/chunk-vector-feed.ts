import type { Db } from './db.ts';
import { ChangeLogFeed } from './change-log-feed.ts';
import { fromBlob } from './vector-store.ts';

/** A chunk's vector with what a search filters it by. */
export type ChunkVector = {
  chunkId: number;
  itemId: number;
  knowledgeBaseId: string;
  sourceType: string;
  vector: Float32Array;
};

type VectorRow = { chunk_id: number; item_id: number; knowledge_base_id: string; source_type: string; embedding: Buffer };

/** The vectors of one model's table and their changes (the chunk_changes log), for VectorIndex. */
export function chunkVectorFeed(db: Db, vectorTable: string): ChangeLogFeed<VectorRow, ChunkVector> {
  const select = `SELECT v.chunk_id, c.item_id, i.knowledge_base_id, i.source_type, v.embedding
    FROM ${vectorTable} v CROSS JOIN chunks c ON c.id = v.chunk_id CROSS JOIN items i ON i.id = c.item_id`;
  return new ChangeLogFeed(db, {
    log: 'chunk_changes',
    key: 'chunk_id',
    all: select,
    byKey: `${select} WHERE v.chunk_id = ?`,
    toEntry: (row) => ({
      chunkId: row.chunk_id,
      itemId: row.item_id,
      knowledgeBaseId: row.knowledge_base_id,
      sourceType: row.source_type,
      vector: fromBlob(row.embedding),
    }),
  });
}

export type ChunkVectorFeed = ReturnType<typeof chunkVectorFeed>;
