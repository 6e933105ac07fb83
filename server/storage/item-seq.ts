import type { Db } from './db.ts';

/** Every accepted version or deletion of any item takes the next number of this one sequence. */
export function prepareNextItemSeq(db: Db): () => number {
  const stmt = db.prepare<[], { value: number }>(
    "UPDATE counters SET value = value + 1 WHERE name = 'item_seq' RETURNING value",
  );
  return () => stmt.get()!.value;
}
