import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileReference, FileUploadFields } from '../../common/contract/files.ts';
import { fileItem } from '../domain/file-items.ts';
import type { JobQueue } from '../domain/job-queue.ts';
import type { Db } from '../storage/db.ts';
import type { Originals } from '../storage/originals.ts';
import { type BulkAck, queueItems } from './queue-items.ts';

export type UploadedFilesDeps = { queue: JobQueue; originals: Originals; db: Db };

/** A file received whole: where it waits, and what it is. */
type Received = { incoming: string; file: FileReference; externalId: string | null };

/**
 * The life of one upload's files, whoever sent them (`POST /knowledge-bases/{id}/files` with an
 * API key, the dashboard's upload with a session): each file is streamed into the data folder
 * while its SHA-256 is computed (never held whole in memory) and synced, as a pushed item is
 * before it is acknowledged. The caller checks every file first; then `queue` keeps them as
 * originals and pushes one item each, or `discard` removes them, so a refused upload keeps nothing.
 */
export class UploadedFiles {
  private readonly received: Received[] = [];

  constructor(private readonly deps: UploadedFilesDeps) {}

  /**
   * Writes one file to disk. `countBytes` hears of each piece as it arrives and may refuse the
   * upload by throwing (the request's size limit): the write stops with that error.
   */
  async receive(source: NodeJS.ReadableStream, name: string, externalId: string | null, countBytes: (bytes: number) => void): Promise<FileReference> {
    const incoming = this.deps.originals.incomingPath();
    const sha = createHash('sha256');
    let bytes = 0;
    const entry: Received = { incoming, file: { sha256: '', name, bytes: 0 }, externalId };
    this.received.push(entry);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        try {
          countBytes(chunk.length);
        } catch (error) {
          return done(error as Error);
        }
        sha.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(source, counter, fs.createWriteStream(incoming, { flags: 'wx', mode: 0o600 }));
    await syncFile(incoming);
    entry.file = { sha256: sha.digest('hex'), name, bytes };
    return entry.file;
  }

  /** Removes every file received: nothing of a refused upload is kept. */
  discard(): void {
    for (const { incoming } of this.received) fs.rmSync(incoming, { force: true });
  }

  /** Keeps the files as originals and queues one item each (named by its externalId, else its file name). */
  async queue(knowledgeBaseId: string, fields: FileUploadFields, apiKeyId: string | null): Promise<BulkAck> {
    const { queue, originals, db } = this.deps;
    const items = this.received.map(({ incoming, file, externalId }) => {
      originals.adopt(incoming, file.sha256);
      return fileItem(knowledgeBaseId, fields, file, externalId ?? file.name);
    });
    let answer: BulkAck;
    try {
      answer = await queueItems(queue, items, apiKeyId);
    } catch (error) {
      // Not queued (a full disk): the originals just kept are no item's.
      this.discard();
      originals.removeUnused(db, items.map((item) => item.data.file.sha256));
      throw error;
    }
    // Committed: a deletion of the same bytes that ran meanwhile cannot have left the jobs without their file.
    for (const { incoming, file } of this.received) originals.settle(incoming, file.sha256);
    return answer;
  }
}

/** On disk before it is acknowledged, as a pushed item is. */
async function syncFile(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
