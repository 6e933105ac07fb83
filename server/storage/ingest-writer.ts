import fs from 'node:fs';
import path from 'node:path';
import { DB_FILE_NAME, type Db, openDatabase } from './db.ts';
import { type EnqueueOptions, type EnqueueResult, JobRepo, type PushInput } from './job-repo.ts';

/**
 * The connection that writes pushed jobs. It commits with synchronous=NORMAL (no disk sync inside
 * the commit, so the event loop is not blocked while the disk works) and makes commits durable
 * with an fdatasync of the write-ahead log on libuv's thread pool before anyone is acknowledged.
 * The effect equals synchronous=FULL for acknowledged jobs, while requests keep being parsed and
 * validated during the sync, and every push that arrived meanwhile shares the next one.
 */
export class IngestWriter {
  private readonly db: Db;
  private readonly repo: JobRepo;
  private readonly walPath: string;
  private walFile: fs.promises.FileHandle | null = null;
  private syncing: Promise<void> | null = null;
  private nextSync: Promise<void> | null = null;

  constructor(dataDir: string) {
    this.db = openDatabase(dataDir);
    this.db.pragma('synchronous = NORMAL');
    this.repo = new JobRepo(this.db);
    this.walPath = path.join(dataDir, `${DB_FILE_NAME}-wal`);
  }

  /** Commits the pushes; they are durable once a later `durable()` resolves. */
  enqueue(pushes: PushInput[], options: EnqueueOptions): EnqueueResult[] {
    return this.repo.enqueue(pushes, options);
  }

  /**
   * Resolves when everything committed before the call is on disk. A sync already running may
   * have started before the caller's commit, so callers arriving meanwhile share the next one.
   */
  durable(): Promise<void> {
    if (!this.syncing) {
      this.syncing = this.syncWal().finally(() => {
        this.syncing = null;
      });
      return this.syncing;
    }
    this.nextSync ??= this.syncing.then(() => {
      this.nextSync = null;
      return this.durable();
    });
    return this.nextSync;
  }

  private async syncWal(): Promise<void> {
    // SQLite keeps the same log file while a connection is open; opened once, on first use.
    this.walFile ??= await fs.promises.open(this.walPath, 'r');
    await this.walFile.datasync();
  }

  close(): void {
    void this.walFile?.close();
    this.db.close();
  }
}
