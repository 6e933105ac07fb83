import path from 'node:path';
import Database from 'better-sqlite3';
import { ownerOnly } from './db.ts';

export const SERVER_LOCK_FILE = 'server.lock';

export class ServerAlreadyRunningError extends Error {}

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
  try {
    db.pragma('busy_timeout = 0');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new ServerAlreadyRunningError(
        `Another LocalIQ server is running on the data folder ${dataDir}; stop it first, or give this one its own LOCALIQ_DATA_DIR.`,
      );
    }
    throw error;
  }
  return { release: () => db.close() };
}
