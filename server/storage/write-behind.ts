import { FailureStreak } from '../domain/background-pass.ts';
import type { Db } from './db.ts';

/** Records wait in memory at most this long, so a burst of them costs one commit, not one each. */
export const WRITE_BEHIND_MS = 1_000;

/**
 * The one owner of a database connection's writes that wait in memory: the API's usage counts
 * (usage-repo.ts) and visitors' turns (visitor-repo.ts). A commit waits for the disk (a few
 * milliseconds with synchronous=FULL), which an answer should not, so these are written a second
 * later, several to a commit; a crash loses the last second of them.
 *
 * Every buffer of a connection is written together, so a read that must see them calls `flush`
 * on the one owner (`writeBehind(db).flush()`) and can forget none of them: the repositories that
 * read these tables do so themselves, no caller has to.
 */
export class WriteBehind {
  private readonly writers: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly streak = new FailureStreak();
  private onFailure: (error: unknown) => void = () => {};

  constructor(private readonly db: Db) {}

  /**
   * Adds a buffer: `write` writes what it holds in one transaction, and when that throws keeps it
   * for the next attempt and throws again.
   */
  add(write: () => void): void {
    this.writers.push(write);
  }

  /** Something waits: it is written within WRITE_BEHIND_MS. */
  schedule(): void {
    this.timer ??= setTimeout(() => this.flushOnTimer(), WRITE_BEHIND_MS).unref();
  }

  /**
   * Writes everything that waits, for a read that must see it. A buffer that cannot be written
   * (the database busy past its timeout) keeps its records, is tried again within a second, and
   * its error is thrown once the others are written.
   */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let failure: { error: unknown } | null = null;
    for (const write of this.writers) {
      try {
        write();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) {
      this.schedule();
      throw failure.error;
    }
  }

  /** Writes what waits; a failure here must not keep the database from closing (the last second is lost, as in a crash). */
  close(): void {
    try {
      this.flush();
    } catch {
      // Lost, as in a crash.
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Hears the first failure of each streak of failed timed writes (the server logs it). */
  reportFailures(listener: (error: unknown) => void): void {
    this.onFailure = listener;
  }

  private flushOnTimer(): void {
    this.timer = null;
    // Closed under its records (a request answered while the server stopped): nothing can be written.
    if (!this.db.open) return;
    try {
      this.flush();
    } catch (error) {
      if (this.streak.failed()) this.onFailure(error);
      return;
    }
    this.streak.succeeded();
  }
}

const owners = new WeakMap<Db, WriteBehind>();

/** The write-behind owner of this database connection (made on first use). */
export function writeBehind(db: Db): WriteBehind {
  let owner = owners.get(db);
  if (!owner) {
    owner = new WriteBehind(db);
    owners.set(db, owner);
  }
  return owner;
}
