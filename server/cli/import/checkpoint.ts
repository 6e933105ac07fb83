import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CheckpointStore, ResumePoint } from '../../../common/import/checkpoint-store.ts';

/**
 * The resume point as `localiq import` writes it. It is keyed by the file's size and modification
 * time and by a hash of the mapping and target, so a changed file or a different mapping starts
 * over instead of skipping rows it never sent. `lastJobId` is absent in checkpoints written
 * before it was kept.
 */
type Checkpoint = ResumePoint & { version: 1; key: string; file: string; updatedAt: string };

export function checkpointKey(file: string, settings: unknown): string {
  const stat = fs.statSync(file);
  const settingsHash = crypto.createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 16);
  return `${stat.size}:${Math.trunc(stat.mtimeMs)}:${settingsHash}`;
}

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `<file>.localiq-import.json` next to the input; where that folder is read-only, a file named
 * after the input's absolute path under `<data folder>/imports/`.
 */
export function defaultCheckpointPath(file: string, dataDir: string): string {
  const absolute = path.resolve(file);
  if (writable(path.dirname(absolute))) return `${absolute}.localiq-import.json`;
  const id = crypto.createHash('sha256').update(absolute).digest('hex').slice(0, 16);
  return path.join(dataDir, 'imports', `${path.basename(absolute)}-${id}.localiq-import.json`);
}

/** The command line's checkpoint store: a JSON file (see defaultCheckpointPath). */
export class CheckpointFile implements CheckpointStore {
  constructor(
    readonly filePath: string,
    private readonly key: string,
    private readonly source: string,
  ) {}

  /** The saved resume point when it belongs to this file and settings; null otherwise. */
  load(): Checkpoint | null {
    let saved: Checkpoint;
    try {
      saved = JSON.parse(fs.readFileSync(this.filePath, 'utf8')) as Checkpoint;
    } catch {
      return null;
    }
    return saved.version === 1 && saved.key === this.key && Number.isInteger(saved.lastRow) ? saved : null;
  }

  /** Written to a temporary file and renamed, so an interruption never leaves half a checkpoint. */
  save({ lastRow, itemsSent, lastJobId }: ResumePoint & { lastJobId: string }): void {
    const value: Checkpoint = { version: 1, key: this.key, file: this.source, lastRow, itemsSent, lastJobId, updatedAt: new Date().toISOString() };
    fs.mkdirSync(path.dirname(this.filePath), { recursive: true });
    const temp = `${this.filePath}.${process.pid}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify(value)}\n`);
    fs.renameSync(temp, this.filePath);
  }

  clear(): void {
    fs.rmSync(this.filePath, { force: true });
  }
}
