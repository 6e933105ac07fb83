import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from './db.ts';
import { sqlList } from './jobs/sql.ts';

/** The data folder's subfolder holding uploaded files as they were sent. */
const ORIGINALS_DIR = 'originals';
/** Where uploads are written while they arrive; a file there is never an original. */
const INCOMING_DIR = '.incoming';

const SHA256_HEX = /^[0-9a-f]{64}$/;

export type StoredOriginal = { sha256: string; file: string; bytes: number };

/**
 * The originals of uploaded files, content-addressed: `originals/ab/abcdef…` by the SHA-256 of
 * their bytes, so one file uploaded as several items (or twice) is kept once. An upload is
 * streamed into `originals/.incoming/` and put in place once whole and synced; an original goes
 * once no item and no job that may still run holds it (`removeUnused`).
 *
 * Deleting an item and uploading the same bytes again at the same moment must not lose the file
 * the new job needs. Two rules make that so: `removeUnused` checks and removes inside one write
 * transaction, so it runs wholly before or wholly after the commit of the upload's jobs; and an
 * upload keeps its own copy (`adopt` links it into place) until its jobs are committed, then
 * `settle` puts that copy back if a removal that ran before the commit took the file. Removals
 * after the commit see the new job and keep the file.
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
   * Makes a whole, synced upload the original with this hash (kept once: when the same bytes are
   * there already, they stay). The upload itself stays too, until `settle` once its jobs are
   * committed (or until it is thrown away when they are not).
   */
  adopt(incoming: string, sha256: string): string {
    const target = this.pathOf(sha256);
    if (!fs.existsSync(target)) this.place(incoming, target, 'link');
    return target;
  }

  /**
   * After the jobs naming this upload are committed: the upload's copy goes, unless a removal
   * that ran before the commit took the original, which the copy then becomes again.
   */
  settle(incoming: string, sha256: string): void {
    const target = this.pathOf(sha256);
    if (fs.existsSync(target)) fs.rmSync(incoming, { force: true });
    else this.place(incoming, target, 'rename');
  }

  /** The file at `target` by a second name for `incoming` (a copy where links are not supported), or `incoming` moved there. */
  private place(incoming: string, target: string, how: 'link' | 'rename'): void {
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    if (how === 'rename') fs.renameSync(incoming, target);
    else {
      try {
        fs.linkSync(incoming, target);
      } catch (error) {
        const code = (error as { code?: string }).code;
        // Another upload of the same bytes placed it first: that file is the same.
        if (code === 'EEXIST') return;
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw error;
        fs.copyFileSync(incoming, target, fs.constants.COPYFILE_EXCL);
        syncFile(target);
      }
    }
    syncFolder(path.dirname(target));
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
   * may still run (queued, processing, or failed and so retryable) carries it. Each is checked
   * and removed inside one write transaction (see the class's comment). Returns those removed.
   */
  removeUnused(db: Db, sha256s: Iterable<string>): string[] {
    const used = db.prepare<[string, string], number>(
      `SELECT EXISTS (SELECT 1 FROM items WHERE original_sha256 = ?)
         OR EXISTS (SELECT 1 FROM jobs WHERE status IN ${sqlList(['queued', 'processing', 'failed'])} AND instr(data, ?) > 0)`,
    ).pluck();
    const removeIfUnused = db.transaction((sha256: string): boolean => {
      if (used.get(sha256, `"sha256":"${sha256}"`)) return false;
      const file = this.pathOf(sha256);
      if (!fs.existsSync(file)) return false;
      fs.rmSync(file, { force: true });
      return true;
    });
    return [...new Set(sha256s)].filter((sha256) => removeIfUnused.immediate(sha256));
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

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
