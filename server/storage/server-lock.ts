import path from 'node:path';
import Database from 'better-sqlite3';
import { ownerOnly } from './db.ts';

const SERVER_LOCK_FILE = 'server.lock';

/** The data folder is used by a running LocalIQ: the caller is to stop it first. */
export class DataFolderInUseError extends Error {}

/**
 * Takes an exclusive lock with `sql` at once, without waiting: when another connection holds the
 * file, closes `db` and refuses with `inUse`.
 */
export function lockOrRefuse(db: Database.Database, sql: string, inUse: string): void {
  try {
    db.pragma('busy_timeout = 0');
    db.exec(sql);
  } catch (error) {
    db.close();
    throw (error as { code?: string }).code === 'SQLITE_BUSY' ? new DataFolderInUseError(inUse) : error;
  }
}

/**
 * Holds an exclusive SQLite lock on a file of the data folder for as long as the server runs, so a
 * second server on the same folder stops before it touches the queue (it would requeue the first
 * one's jobs in progress and run a second pipeline). The operating system drops the lock when the
 * process ends, however it ends, so a crash leaves nothing to clean up. The CLI's other commands
 * do not take it: they may run beside a server.
 */
export function lockDataFolder(dataDir: string): { release(): void } {
  const file = path.join(dataDir, SERVER_LOCK_FILE);
  ownerOnly(file);
  const db = new Database(file);
  lockOrRefuse(db, 'BEGIN EXCLUSIVE', `Another LocalIQ server is running on the data folder ${dataDir}; stop it first, or give this one its own LOCALIQ_DATA_DIR.`);
  return { release: () => db.close() };
}
