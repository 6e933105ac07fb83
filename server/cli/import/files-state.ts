import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What was last pushed of one file: a file whose size and time are unchanged is not read again. */
export type SyncedFile = { size: number; mtimeMs: number; sha256: string };

type StateFile = { version: 1; target: unknown; files: Record<string, SyncedFile> };

/**
 * The checkpoint of `localiq files add`: for each externalId, the file last pushed. Kept in the
 * data folder (`file-sync/`), one per knowledge base, integration and set of paths, so the
 * folders being synced are never written to, and a restart catches up on what changed while it
 * was off by comparing, without pushing everything again. Written whole under a temporary name
 * and renamed, after every batch the server acknowledged.
 */
export class FileSyncState {
  readonly file: string;
  private readonly target: unknown;
  files: Record<string, SyncedFile>;

  constructor(dataDir: string, target: { knowledgeBaseId: string; integrationId: string; roots: string[] }) {
    this.target = target;
    const id = crypto.createHash('sha256').update(JSON.stringify(target)).digest('hex').slice(0, 16);
    this.file = path.join(dataDir, 'file-sync', `${target.knowledgeBaseId}-${id}.json`.replace(/[^\w.-]/g, '_'));
    this.files = load(this.file);
  }

  save(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const partial = `${this.file}.partial`;
    fs.writeFileSync(partial, JSON.stringify({ version: 1, target: this.target, files: this.files } satisfies StateFile), { mode: 0o600 });
    fs.renameSync(partial, this.file);
  }
}

function load(file: string): Record<string, SyncedFile> {
  try {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as StateFile;
    return state.version === 1 ? state.files : {};
  } catch {
    return {};
  }
}

export async function sha256Of(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
