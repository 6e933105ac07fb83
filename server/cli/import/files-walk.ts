import fs from 'node:fs';
import path from 'node:path';
import { HIDDEN_REASON, unsendableReason } from '../../../common/contract/files.ts';

/** A document found on disk, and the externalId it is pushed under. */
export type LocalFile = { file: string; externalId: string; size: number; mtimeMs: number };
export type Skipped = { file: string; reason: string };
export type Walk = { files: LocalFile[]; skipped: Skipped[] };

/**
 * The documents under the given paths. A folder is walked whole; hidden files and folders (a name
 * starting with ".") are left out, and so are files LocalIQ does not read, each with its reason.
 * A file's externalId is its path under the folder given (with "/"), so two "index.md" in two
 * subfolders stay two items; a file given by itself is named by its file name.
 */
export function walkFiles(paths: string[], maxBytes: number): Walk {
  const walk: Walk = { files: [], skipped: [] };
  for (const given of paths) {
    const root = path.resolve(given);
    const stat = fs.statSync(root, { throwIfNoEntry: false });
    if (!stat) walk.skipped.push({ file: root, reason: 'not found' });
    else if (stat.isDirectory()) visit(root, root, walk, maxBytes);
    else consider(root, path.basename(root), stat, walk, maxBytes);
  }
  walk.files.sort((a, b) => a.externalId.localeCompare(b.externalId));
  return walk;
}

function visit(root: string, folder: string, walk: Walk, maxBytes: number): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    walk.skipped.push({ file: folder, reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
    return;
  }
  for (const entry of entries) {
    const file = path.join(folder, entry.name);
    if (entry.name.startsWith('.')) {
      walk.skipped.push({ file, reason: HIDDEN_REASON });
    } else if (entry.isDirectory()) {
      visit(root, file, walk, maxBytes);
    } else if (entry.isFile()) {
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      if (stat) consider(file, path.relative(root, file).split(path.sep).join('/'), stat, walk, maxBytes);
    }
    // Links and other special files are not followed: a link out of the folder would upload what it was not asked to.
  }
}

function consider(file: string, externalId: string, stat: fs.Stats, walk: Walk, maxBytes: number): void {
  // Hidden names were left out while walking; a file named on the command line is sent as asked.
  const reason = unsendableReason(file, stat.size, maxBytes);
  if (reason) walk.skipped.push({ file, reason });
  else walk.files.push({ file, externalId, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) });
}

/** "12 hidden, 3 not a kind of file LocalIQ reads (…)": skipped files counted by reason. */
export function skippedSummary(skipped: Skipped[]): string {
  const byReason = new Map<string, number>();
  for (const { reason } of skipped) byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  return [...byReason]
    .sort(([a, m], [b, n]) => n - m || a.localeCompare(b))
    .map(([reason, n]) => `${n} ${reason}`)
    .join('; ');
}
