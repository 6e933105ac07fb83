import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrate.ts';
import { loadVectorExtension } from './vector-extension.ts';

export type Db = Database.Database;

export const DB_FILE_NAME = 'localiq.db';

/** The data folder, created readable by its owner only. */
export function ensureDataDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
}

/**
 * Makes a database file readable and writable by its owner only, creating it empty if it does not
 * exist: it holds password and key hashes and all content. SQLite gives its -wal and -shm files the
 * database's mode. A file an earlier version left readable by others is tightened.
 *
 * An existing file is never opened here: closing any descriptor of a file drops every POSIX lock
 * the process holds on it, which would silently take SQLite's locks from this process's other
 * connections (a restore beside a running server would then be let through).
 */
export function ownerOnly(file: string): void {
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  else if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
}

/**
 * Opens (and creates, and migrates) the LocalIQ database in a data folder.
 * WAL lets readers and the single writer work side by side; synchronous=FULL makes every
 * committed transaction durable before the commit returns, so an acknowledged job survives
 * a crash or power loss, not only a killed process.
 */
export function openDatabase(dataDir: string): Db {
  const file = path.join(dataDir, DB_FILE_NAME);
  let db: Db;
  try {
    ensureDataDir(dataDir);
    ownerOnly(file);
    db = new Database(file);
  } catch (error) {
    // "EEXIST: file already exists, mkdir" or "unable to open database file" alone do not say
    // which folder, nor what to change.
    throw new Error(
      `Cannot open the LocalIQ database in ${dataDir} (${(error as Error).message}). ` +
        'LOCALIQ_DATA_DIR must name a folder this user may create and write.',
    );
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  loadVectorExtension(db);
  migrate(db);
  return db;
}

/**
 * A second, read-only connection to an open database, for long reads (loading search's in-memory
 * vector and keyword indexes) that must not keep the main connection busy between the event
 * loop's turns.
 */
export function openReader(db: Db): Db {
  const reader = new Database(db.name, { readonly: true, fileMustExist: true });
  reader.pragma('busy_timeout = 5000');
  loadVectorExtension(reader);
  return reader;
}
