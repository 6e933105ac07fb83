import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from './db.ts';
import { sqlList } from './jobs/sql.ts';

/** The data folder's subfolder holding uploaded files as they were sent. */
export const ORIGINALS_DIR = 'originals';
/** Where uploads are written while they arrive; a file there is never an original. */
const INCOMING_DIR = '.incoming';

const SHA256_HEX = /^[0-9a-f]{64}$/;

export type StoredOriginal = { sha256: string; file: string; bytes: number };

/**
 * The originals of uploaded files, content-addressed: `originals/ab/abcdef…` by the SHA-256 of
 * their bytes, so one file uploaded as several items (or twice) is kept once. An upload is
 * streamed into `originals/.incoming/` and renamed into place once whole and synced; an original
 * goes once no item and no job that may still run holds it (`removeUnused`).
 */
export class Originals {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, ORIGINALS_DIR);
  }

  pathOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a SHA-256 in hex: ${sha256}`);
    return path.join(this.dir, sha256.slice(0, 2), sha256);
  }

  /** A fresh file name for an upload under way (its folder is created, owner-only). */
  incomingPath(): string {
    const folder = path.join(this.dir, INCOMING_DIR);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    return path.join(folder, `${Date.now()}-${randomBytes(6).toString('hex')}`);
  }

  /**
   * Makes a whole, synced upload the original with this hash. When the same bytes are kept
   * already, the upload is dropped and the kept file stays.
   */
  adopt(incoming: string, sha256: string): string {
    const target = this.pathOf(sha256);
    if (fs.existsSync(target)) {
      fs.rmSync(incoming, { force: true });
      return target;
    }
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    fs.renameSync(incoming, target);
    syncFolder(path.dirname(target));
    return target;
  }

  has(sha256: string): boolean {
    return fs.existsSync(this.pathOf(sha256));
  }

  /** Every original kept, for backups. */
  list(): StoredOriginal[] {
    if (!fs.existsSync(this.dir)) return [];
    const found: StoredOriginal[] = [];
    for (const prefix of fs.readdirSync(this.dir)) {
      if (prefix === INCOMING_DIR) continue;
      const folder = path.join(this.dir, prefix);
      if (!fs.statSync(folder).isDirectory()) continue;
      for (const name of fs.readdirSync(folder)) {
        if (!SHA256_HEX.test(name)) continue;
        const file = path.join(folder, name);
        found.push({ sha256: name, file, bytes: fs.statSync(file).size });
      }
    }
    return found;
  }

  /**
   * Removes each of these originals that nothing uses any more: no item names it, and no job that
   * may still run (queued, processing, or failed and so retryable) carries it. Returns those removed.
   */
  removeUnused(db: Db, sha256s: Iterable<string>): string[] {
    const used = db.prepare<[string, string], number>(
      `SELECT EXISTS (SELECT 1 FROM items WHERE original_sha256 = ?)
         OR EXISTS (SELECT 1 FROM jobs WHERE status IN ${sqlList(['queued', 'processing', 'failed'])} AND instr(data, ?) > 0)`,
    ).pluck();
    const removed: string[] = [];
    for (const sha256 of new Set(sha256s)) {
      if (used.get(sha256, `"sha256":"${sha256}"`)) continue;
      const file = this.pathOf(sha256);
      if (!fs.existsSync(file)) continue;
      fs.rmSync(file, { force: true });
      removed.push(sha256);
    }
    return removed;
  }

  /** Uploads a stopped server left half-written: none of them was ever acknowledged. */
  clearIncoming(): void {
    fs.rmSync(path.join(this.dir, INCOMING_DIR), { recursive: true, force: true });
  }
}

export function syncFolder(folder: string): void {
  // Windows cannot open a folder to sync it; its renames are durable through the file system's journal.
  if (process.platform === 'win32') return;
  const fd = fs.openSync(folder, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
