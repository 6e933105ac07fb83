import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { partialBackupName } from '../domain/backup-names.ts';
import { workerModule } from '../worker-module.ts';
import { DB_FILE_NAME, ensureDataDir, openDatabase, ownerOnly, type Db } from './db.ts';
import { lockOrRefuse } from './server-lock.ts';
import { MIGRATIONS } from './migrate.ts';
import { addOriginalsToBackup, originalsBytes, originalsInBackup, restoreOriginals } from './backup-originals.ts';

/** What a backup holds, as counted in it. */
export type BackupContents = {
  schemaVersion: number;
  items: number;
  chunks: number;
  jobs: number;
  apiKeys: number;
  /** Uploaded files (files as knowledge) the backup holds with the database (backup-originals.ts). */
  originals: number;
};
export type BackupResult = BackupContents & { file: string; bytes: number };

const { entry: WORKER_ENTRY, module: BACKUP_THREAD } = workerModule('backup-thread');

/**
 * Writes a consistent copy of a data folder's database to `target` while LocalIQ keeps running.
 * VACUUM INTO reads one snapshot, so pushes and the pipeline go on writing meanwhile and the copy
 * holds exactly what was committed when it began, compacted. It is written under a temporary
 * name and renamed once on disk: `target` is a whole backup or absent, never half of one.
 */
export function backupDatabase(dataDir: string, target: string): BackupResult {
  const live = path.join(dataDir, DB_FILE_NAME);
  if (!fs.existsSync(live)) throw new Error(`There is no LocalIQ database in ${dataDir}.`);
  const file = path.resolve(target);
  if (fs.existsSync(file)) throw new Error(`${file} exists already; back up to a new file.`);
  const partial = partialBackupName(file);
  fs.rmSync(partial, { force: true });
  const db = openDatabase(dataDir);
  try {
    checkFreeSpace(db, path.dirname(file), originalsBytes(db, dataDir));
    // Created empty and owner-only first (VACUUM INTO fills an empty file): a backup holds what
    // the database holds, and backup folders are often shared.
    ownerOnly(partial);
    db.prepare('VACUUM INTO ?').run(partial);
  } finally {
    db.close();
  }
  addOriginalsToBackup(partial, dataDir);
  syncToDisk(partial);
  fs.renameSync(partial, file);
  syncToDisk(path.dirname(file));
  // Read back as a restore would read it: the report counts what the file holds, once checked.
  const backup = openBackup(file);
  try {
    return { file, bytes: fs.statSync(file).size, ...backupContents(backup) };
  } finally {
    backup.close();
  }
}

/** Room left on the backup's disk beyond the backup itself, in case that is the data folder's disk. */
const SPARE_BYTES = 64_000_000;

/**
 * Refuses a backup its disk cannot hold before writing any of it: a full disk would fail it
 * halfway, and where the backup shares the data folder's disk, LocalIQ's own writes would fail too.
 * The copy is compacted, so it takes about the pages in use.
 */
function checkFreeSpace(db: Db, folder: string, originalsBytes: number): void {
  const pages = (name: string) => db.pragma(name, { simple: true }) as number;
  const needed = (pages('page_count') - pages('freelist_count')) * pages('page_size') + originalsBytes;
  const { bavail, bsize } = fs.statfsSync(folder);
  const free = bavail * bsize;
  if (free < needed + SPARE_BYTES) {
    // Rounded so as never to understate the need or overstate the room.
    const mb = (bytes: number, round: (n: number) => number) => `${round(bytes / 1_000_000)} MB`;
    throw new Error(
      `Not enough free space in ${folder}: the backup needs about ${mb(needed, Math.ceil)} (and ${mb(SPARE_BYTES, Math.ceil)} to spare), ${mb(free, Math.floor)} are free.`,
    );
  }
}

/**
 * `backupDatabase` on a thread of its own, so that a server's event loop goes on meanwhile, and
 * this thread syncs the copy to disk as it grows (flushToDisk). An abort stops the thread at once
 * (a server shutting down) and removes what it had written.
 */
export function backupInThread(dataDir: string, target: string, signal?: AbortSignal): Promise<BackupResult> {
  if (signal?.aborted) return Promise.reject(new Error('The backup was stopped: LocalIQ is closing.'));
  const partial = partialBackupName(path.resolve(target));
  const flushing = setInterval(() => void flushToDisk(partial), FLUSH_EVERY_MS);
  return new Promise<BackupResult>((resolve, reject) => {
    const worker = new Worker(WORKER_ENTRY, { workerData: { module: BACKUP_THREAD, dataDir, target } });
    signal?.addEventListener('abort', () => void worker.terminate(), { once: true });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!signal?.aborted) return reject(new Error(`The backup thread stopped (exit code ${code}).`));
      fs.rmSync(partial, { force: true });
      reject(new Error('The backup was stopped: LocalIQ is closing.'));
    });
  }).finally(() => clearInterval(flushing));
}

/**
 * While a backup is written, what it has written so far goes to disk every so often. Written all
 * at once by its final sync, a copy of hundreds of megabytes held the disk syncs of the server's
 * commits (its acknowledged pushes) for as long as that took (bench/diagnostics/backup-stalls.ts).
 */
const FLUSH_EVERY_MS = 200;
const flushesUnderWay = new Set<string>();

async function flushToDisk(file: string): Promise<void> {
  if (flushesUnderWay.has(file)) return;
  flushesUnderWay.add(file);
  try {
    // Opened for writing, as Windows syncs only through a handle that may write.
    const handle = await fs.promises.open(file, 'r+');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not there (yet, or renamed once whole): nothing to flush.
  } finally {
    flushesUnderWay.delete(file);
  }
}

/** Opens a backup read-only, once it is known to be a whole LocalIQ database this build can open. */
export function openBackup(file: string): Db {
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new Error(`There is no file at ${file}.`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    let check: unknown;
    try {
      check = db.pragma('quick_check', { simple: true });
    } catch (error) {
      // Not a database at all (SQLITE_NOTADB), or one whose pages cannot be read (SQLITE_CORRUPT).
      throw new Error(`${file} is not a whole LocalIQ backup: ${(error as Error).message}.`);
    }
    if (check !== 'ok') throw new Error(`${file} is damaged: ${String(check)}.`);
    const tables = db
      .prepare<[], number>(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('items', 'chunks', 'jobs', 'api_keys', 'settings')",
      )
      .pluck()
      .get();
    const version = db.pragma('user_version', { simple: true }) as number;
    if (tables !== 5 || version < 1) throw new Error(`${file} is not a LocalIQ backup.`);
    if (version > MIGRATIONS.length) {
      throw new Error(`${file} was written by a newer LocalIQ (schema ${version}, this build knows ${MIGRATIONS.length}).`);
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function backupContents(db: Db): BackupContents {
  const count = (table: string) => db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get()!;
  return {
    schemaVersion: db.pragma('user_version', { simple: true }) as number,
    items: count('items'),
    chunks: count('chunks'),
    jobs: count('jobs'),
    apiKeys: count('api_keys'),
    originals: originalsInBackup(db),
  };
}

/**
 * Puts a backup in place of a data folder's database. Refused while anything has that database
 * open: a running server would go on with the old file and its in-memory indexes. The database
 * it replaces is kept beside it (`localiq.db.before-restore-<time>`) with all it had committed.
 */
export function replaceDatabase(dataDir: string, backupFile: string, now = new Date()): { keptAs: string | null } {
  ensureDataDir(dataDir);
  const live = path.join(dataDir, DB_FILE_NAME);
  const incoming = `${live}.restoring`;
  const hadDatabase = fs.existsSync(live);
  const holder = hadDatabase ? lockExclusively(live) : null;
  try {
    fs.copyFileSync(backupFile, incoming);
    ownerOnly(incoming);
    restoreOriginals(incoming, dataDir);
    syncToDisk(incoming);
    // Everything the old database committed goes into its main file, which is what is kept.
    holder?.pragma('wal_checkpoint(TRUNCATE)');
  } catch (error) {
    fs.rmSync(incoming, { force: true });
    throw error;
  } finally {
    holder?.close();
  }
  let keptAs: string | null = null;
  if (hadDatabase) {
    keptAs = `${live}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}`;
    fs.renameSync(live, keptAs);
    ownerOnly(keptAs);
  }
  for (const leftover of [`${live}-wal`, `${live}-shm`]) fs.rmSync(leftover, { force: true });
  fs.renameSync(incoming, live);
  syncToDisk(dataDir);
  return { keptAs };
}

/**
 * A connection to a database in WAL mode (as LocalIQ keeps it) holds a shared lock for as long as
 * it is open, idle or not, so an exclusive lock is granted only when nothing else has the file
 * open (test/integration/backup.test.ts refuses a restore beside a running server).
 */
function lockExclusively(file: string): Db {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('locking_mode = EXCLUSIVE');
  lockOrRefuse(db, 'BEGIN EXCLUSIVE; COMMIT', 'LocalIQ is running on this data folder (its database is open); stop it first.');
  return db;
}

function syncToDisk(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
