import type { Db } from './db.ts';

/** One entry of a change log: the row as it is now, or null when it is gone. */
export type Change<Entry> = { seq: number; key: number; current: Entry | null };

/** A consistent read of every row, possibly spanning several turns of the event loop. */
export type Snapshot<Entry> = { seq: number; entries: Iterator<Entry>; close(): void };

export type ChangeLogSource<Row, Entry> = {
  /** The log table (`seq` and the key column), written by triggers in commit order. */
  log: string;
  key: string;
  /** Every row to mirror. */
  all: string;
  /** The same row by key (one `?`, bound as a 64-bit integer). */
  byKey: string;
  toEntry(row: Row): Entry;
};

/**
 * Reads what an in-memory index mirrors from the database: all rows at once, then what changed
 * since, from a change log that triggers append to (chunk_changes, item_changes; bounded, so a
 * reader too far behind is told to reload). Give it a connection of its own: a snapshot keeps a
 * read transaction open between event-loop turns.
 */
export class ChangeLogFeed<Row, Entry> {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly source: ChangeLogSource<Row, Entry>,
  ) {
    this.stmts = {
      lastSeq: db.prepare<[], { seq: number | null }>(`SELECT max(seq) AS seq FROM ${source.log}`),
      firstSeq: db.prepare<[], { seq: number | null }>(`SELECT min(seq) AS seq FROM ${source.log}`),
      all: db.prepare<[], Row>(source.all),
      changes: db.prepare<[number, number], { seq: number; key: number }>(
        `SELECT seq, ${source.key} AS key FROM ${source.log} WHERE seq > ? ORDER BY seq LIMIT ?`,
      ),
      byKey: db.prepare<[bigint], Row>(source.byKey),
    };
  }

  /** Every row, read in one snapshot, and the log position it reflects. Call `close` when done. */
  snapshot(): Snapshot<Entry> {
    this.db.exec('BEGIN');
    const seq = this.stmts.lastSeq.get()!.seq ?? 0;
    const rows = this.stmts.all.iterate();
    let open = true;
    return {
      seq,
      entries: {
        next: () => {
          const row = rows.next();
          return row.done ? { done: true, value: undefined } : { done: false, value: this.source.toEntry(row.value) };
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
   * The first `limit` changes after `seq`, each with the row as it is now (a row written then
   * removed again reads as removed), or null when the log no longer reaches back to `seq`.
   */
  changesSince(seq: number, limit = Infinity): Change<Entry>[] | null {
    // The common case, nothing new, costs one index probe; the rest reads in one snapshot.
    if ((this.stmts.lastSeq.get()!.seq ?? 0) <= seq) return [];
    return this.db.transaction(() => {
      if ((this.stmts.firstSeq.get()!.seq ?? 0) > seq + 1) return null;
      return this.stmts.changes.all(seq, Number.isFinite(limit) ? limit : -1).map((change) => {
        const row = this.stmts.byKey.get(BigInt(change.key));
        return { seq: change.seq, key: change.key, current: row ? this.source.toEntry(row) : null };
      });
    })();
  }
}
