import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { scopeColumn } from './keyword-scope.ts';
import { MIGRATIONS } from './migrations.ts';
import { loadVectorExtension } from './vector-store.ts';

export type Db = Database.Database;

export const DB_FILE_NAME = 'localiq.db';

/**
 * Opens (and creates, and migrates) the LocalIQ database in a data folder.
 * WAL lets readers and the single writer work side by side; synchronous=FULL makes every
 * committed transaction durable before the commit returns, so an acknowledged job survives
 * a crash or power loss, not only a killed process.
 */
export function openDatabase(dataDir: string): Db {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(path.join(dataDir, DB_FILE_NAME));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  loadVectorExtension(db);
  // For migrations that rebuild the keyword indexes.
  db.function('localiq_scope', { deterministic: true }, (kb, type, itemId) =>
    scopeColumn(String(kb), String(type), itemId === null ? null : Number(itemId)),
  );
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `The database was written by a newer LocalIQ (schema ${current}, this build knows ${MIGRATIONS.length}).`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
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
