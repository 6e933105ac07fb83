import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { Db } from './db.ts';
import { Originals, syncFolder } from './originals.ts';
import path from 'node:path';

/**
 * A backup is one file: the uploaded originals its items and jobs use (files as knowledge) go
 * into it as a table of their own, written into the copy before it is renamed whole, and are put
 * back into the data folder's originals/ on restore (and the table dropped from the restored
 * database). One original at a time is held in memory, at most the upload limit of one file.
 */
const TABLE = 'backup_originals';

/** SHA-256s of the originals a database's items and open jobs name. */
function referencedOriginals(db: Db): string[] {
  return db
    .prepare<[], string>(
      `SELECT original_sha256 FROM items WHERE original_sha256 IS NOT NULL
       UNION SELECT json_extract(data, '$.file.sha256') FROM jobs WHERE json_extract(data, '$.file.sha256') IS NOT NULL`,
    )
    .pluck()
    .all();
}

/** Bytes of the originals a backup of this database will hold (for the free-space check). */
export function originalsBytes(db: Db, dataDir: string): number {
  const originals = new Originals(dataDir);
  return referencedOriginals(db).reduce((sum, sha) => sum + (fs.statSync(originals.pathOf(sha), { throwIfNoEntry: false })?.size ?? 0), 0);
}

/** Copies the originals the backup copy uses into it; returns how many. */
export function addOriginalsToBackup(copy: string, dataDir: string): number {
  const originals = new Originals(dataDir);
  const db = new Database(copy);
  try {
    const wanted = referencedOriginals(db);
    if (wanted.length === 0) return 0;
    db.exec(`CREATE TABLE ${TABLE} (sha256 TEXT PRIMARY KEY, bytes BLOB NOT NULL) STRICT`);
    const insert = db.prepare<[string, Buffer]>(`INSERT INTO ${TABLE} (sha256, bytes) VALUES (?, ?)`);
    let added = 0;
    for (const sha of wanted) {
      // Deleted since the copy's moment (its item went meanwhile): nothing to keep.
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(originals.pathOf(sha));
      } catch {
        continue;
      }
      insert.run(sha, bytes);
      added++;
    }
    return added;
  } finally {
    db.close();
  }
}

/** How many originals a backup holds. */
export function originalsInBackup(db: Db): number {
  const has = db.prepare<[string], number>("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(TABLE);
  return has ? db.prepare<[], number>(`SELECT count(*) FROM ${TABLE}`).pluck().get()! : 0;
}

/**
 * Puts a restored copy's originals into the data folder and drops their table from it, before
 * the copy takes the database's place. An original already there (same bytes, same name) stays.
 */
export function restoreOriginals(copy: string, dataDir: string): number {
  const db = new Database(copy);
  try {
    if (originalsInBackup(db) === 0) return 0;
    const originals = new Originals(dataDir);
    let restored = 0;
    for (const row of db.prepare<[], { sha256: string; bytes: Buffer }>(`SELECT sha256, bytes FROM ${TABLE}`).iterate()) {
      if (originals.has(row.sha256)) continue;
      const incoming = originals.incomingPath();
      fs.writeFileSync(incoming, row.bytes, { mode: 0o600, flush: true });
      originals.adopt(incoming, row.sha256);
      restored++;
    }
    db.exec(`DROP TABLE ${TABLE}`);
    syncFolder(path.join(originals.dir));
    return restored;
  } finally {
    db.close();
  }
}
