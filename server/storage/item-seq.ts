import type { Db } from './db.ts';

/**
 * Every accepted version or deletion of any item takes the next number of this one sequence.
 * Returns a function that reserves `count` numbers and gives the first of them.
 */
export function prepareNextItemSeq(db: Db): (count?: number) => number {
  const stmt = db.prepare<[number], { value: number }>(
    "UPDATE counters SET value = value + ? WHERE name = 'item_seq' RETURNING value",
  );
  return (count = 1) => stmt.get(count)!.value - count + 1;
}
