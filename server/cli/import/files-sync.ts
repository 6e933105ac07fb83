import fs from 'node:fs';
import path from 'node:path';
import { ErrorAnswer } from '../../../common/contract/errors.ts';
import type { ApiClient } from './api-client.ts';
import { type FileSyncState, sha256Of } from './files-state.ts';
import { type LocalFile, type Skipped, walkFiles } from './files-walk.ts';

export type FilesTarget = { knowledgeBaseId: string; integrationId: string; sourceType?: string | undefined };

export type SyncOptions = {
  client: ApiClient;
  state: FileSyncState;
  target: FilesTarget;
  paths: string[];
  /** The largest file sent (bigger ones are skipped and said so). */
  maxBytes: number;
  /** Delete the items of files no longer there (`--watch`); `add` alone only adds and updates. */
  deleteRemoved: boolean;
  /** Files and bytes in one request, within the server's limits. */
  batchFiles?: number;
  batchBytes?: number;
  onProgress?: (progress: { sentBytes: number; totalBytes: number; sentFiles: number; totalFiles: number }) => void;
};

export type SyncReport = {
  found: number;
  skipped: Skipped[];
  unchanged: number;
  uploaded: Array<{ externalId: string; jobId: string }>;
  deleted: string[];
  /** Files the server refused, with its reason (the rest went on). */
  refused: Array<{ externalId: string; reason: string }>;
};

type Changed = LocalFile & { sha256: string };

/**
 * One pass of `localiq files add`: finds the documents, reads again only those whose size or time
 * changed since the last pass (the checkpoint), uploads those whose bytes changed in batches, and
 * with `deleteRemoved` deletes the items of files that are gone. The checkpoint is saved after
 * every batch, so an interrupted pass resumes without pushing again what was acknowledged.
 */
export async function syncFiles(options: SyncOptions): Promise<SyncReport> {
  const { client, state, target, batchFiles = 20, batchBytes = 64 * 1024 * 1024 } = options;
  const walk = walkFiles(options.paths, options.maxBytes);
  const report: SyncReport = { found: walk.files.length, skipped: walk.skipped, unchanged: 0, uploaded: [], deleted: [], refused: [] };

  const changed: Changed[] = [];
  for (const file of walk.files) {
    const synced = state.files[file.externalId];
    if (synced && synced.size === file.size && synced.mtimeMs === file.mtimeMs) {
      report.unchanged++;
      continue;
    }
    const sha256 = await sha256Of(file.file);
    if (synced?.sha256 === sha256) {
      // Touched, not changed: remembered with its new time, not sent.
      state.files[file.externalId] = { size: file.size, mtimeMs: file.mtimeMs, sha256 };
      report.unchanged++;
    } else changed.push({ ...file, sha256 });
  }

  const totalBytes = changed.reduce((sum, file) => sum + file.size, 0);
  let sentBytes = 0;
  let sentFiles = 0;
  options.onProgress?.({ sentBytes, totalBytes, sentFiles, totalFiles: changed.length });
  for (const batch of batches(changed, batchFiles, batchBytes)) {
    const form = new FormData();
    form.append('integrationId', target.integrationId);
    if (target.sourceType) form.append('sourceType', target.sourceType);
    for (const file of batch) {
      form.append('externalId', file.externalId);
      form.append('file', await fs.openAsBlob(file.file), path.basename(file.file));
    }
    try {
      const ack = await client.request<{ jobIds: string[] }>('POST', `/knowledge-bases/${encodeURIComponent(target.knowledgeBaseId)}/files`, form);
      batch.forEach((file, i) => {
        state.files[file.externalId] = { size: file.size, mtimeMs: file.mtimeMs, sha256: file.sha256 };
        report.uploaded.push({ externalId: file.externalId, jobId: ack.jobIds[i]! });
      });
    } catch (error) {
      // A refusal of the batch (a 4xx) is reported and the pass goes on; anything else stops it.
      if (!(error instanceof ErrorAnswer) || error.status >= 500) throw error;
      const why = error.details.length ? `${error.message} (${error.details.map((d) => `${d.path}: ${d.message}`).join('; ')})` : error.message;
      for (const file of batch) report.refused.push({ externalId: file.externalId, reason: why });
    }
    state.save();
    sentBytes += batch.reduce((sum, file) => sum + file.size, 0);
    sentFiles += batch.length;
    options.onProgress?.({ sentBytes, totalBytes, sentFiles, totalFiles: changed.length });
  }

  if (options.deleteRemoved) {
    const present = new Set(walk.files.map((file) => file.externalId));
    for (const externalId of Object.keys(state.files)) {
      if (present.has(externalId)) continue;
      const item = [target.knowledgeBaseId, target.integrationId, externalId].map(encodeURIComponent).join('/');
      try {
        await client.request('DELETE', `/items/${item}`);
      } catch (error) {
        // Deleted already (in the dashboard, say): what was wanted.
        if (!(error instanceof ErrorAnswer && error.status === 404)) throw error;
      }
      delete state.files[externalId];
      report.deleted.push(externalId);
      state.save();
    }
  }
  state.save();
  return report;
}

/** Files in groups of at most `maxFiles` and about `maxBytes` (one larger file goes alone). */
function batches<T extends { size: number }>(files: T[], maxFiles: number, maxBytes: number): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const file of files) {
    if (group.length > 0 && (group.length >= maxFiles || bytes + file.size > maxBytes)) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(file);
    bytes += file.size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
