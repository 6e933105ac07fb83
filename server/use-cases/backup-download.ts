import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { backupInThread } from '../storage/backup.ts';

/** Where backups wait while they are downloaded; one left by a crash is removed after a day. */
const DOWNLOADS = 'backup-downloads';
const LEFTOVER_MS = 24 * 60 * 60_000;

function removeLeftovers(folder: string, now: number): void {
  for (const name of fs.readdirSync(folder)) {
    const file = path.join(folder, name);
    if (now - fs.statSync(file).mtimeMs > LEFTOVER_MS) fs.rmSync(file, { force: true });
  }
}

/**
 * A backup of the database to download: the same consistent copy as `localiq backup`, written on a
 * thread of its own into the data folder. Returns the file, which the caller removes once it is
 * sent; `signal` stops the copy (the server is closing).
 */
export async function writeBackupForDownload(dataDir: string, signal: AbortSignal): Promise<string> {
  const folder = path.join(dataDir, DOWNLOADS);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  removeLeftovers(folder, Date.now());
  const file = path.join(folder, `${randomUUID()}.db`);
  await backupInThread(dataDir, file, signal);
  return file;
}
