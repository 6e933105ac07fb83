import fs from 'node:fs';
import type { ImportMapping, ImportTarget, RowError } from '../../common/import/import-mapping.ts';
import { mapRecord } from '../../common/import/import-mapping.ts';
import type { IngestItem } from '../../common/contract/ingest.ts';
import { ErrorAnswer } from '../../common/contract/errors.ts';
import type { ApiClient } from './api-client.ts';
import { type Checkpoint, CheckpointFile, checkpointKey } from './checkpoint.ts';
import { followJobs, type JobTally } from './follow-jobs.ts';
import type { ImportFormat } from '../../common/import/formats.ts';
import { openRecords } from './readers.ts';
import { findAbsentItems, deleteItems } from './sync.ts';

export type ImportProgress = {
  /** After each acknowledged batch (and once at the end of reading). */
  reading(state: { bytesRead: number; totalBytes: number; rows: number; itemsSent: number; invalid: number; finished: boolean }): void;
  /** While waiting for the jobs to reach a final state. */
  following(state: { done: number; total: number }): void;
  /** A line for the person running the import (resume notes, retries). */
  note(text: string): void;
};

export type ImportOptions = {
  file: string;
  format: ImportFormat;
  delimiter?: string;
  mapping: ImportMapping;
  target: ImportTarget;
  /** Needed unless this is a dry run without sync. */
  client: ApiClient | null;
  batchSize: number;
  /** Serialized size at which a batch is sent early, to stay under the server's body limit. */
  maxBatchBytes: number;
  dryRun: boolean;
  /** Items shown by a dry run. */
  previewCount: number;
  /** Where the resume point lives; null turns resuming off. */
  checkpointPath: string | null;
  /** Wait for the jobs to reach a final state, up to this long; 0 does not wait. */
  waitMs: number;
  sync: boolean;
  /** Asked before sync deletes anything; answers whether to go ahead. */
  confirmDelete: (count: number) => Promise<boolean>;
  onInvalidRow?: (error: RowError) => void;
  progress?: ImportProgress;
};

export type ImportReport = {
  file: string;
  format: ImportFormat;
  rows: number;
  valid: number;
  invalid: number;
  invalidRows: RowError[];
  /** Valid rows without a title: their item's title is the start of the content (mapRecord). */
  titlesFromContent: number;
  /** Rows the server had already acknowledged before this run (from the checkpoint). */
  resumedAfterRow: number | null;
  itemsSent: number;
  batches: number;
  preview: IngestItem[];
  jobs: (JobTally & { timedOut: boolean }) | null;
  sync: { absent: number; deleted: number; confirmed: boolean } | null;
};

/** Invalid rows kept for the report; all of them are still passed to onInvalidRow. */
const MAX_REPORTED_INVALID = 10_000;

export async function runImport(options: ImportOptions): Promise<ImportReport> {
  const { file, format, mapping, target, client, progress } = options;
  const totalBytes = fs.statSync(file).size;
  const checkpoint = options.checkpointPath && !options.dryRun
    ? new CheckpointFile(options.checkpointPath, checkpointKey(file, { format, delimiter: options.delimiter ?? null, mapping, target }), file)
    : null;
  if (!options.dryRun && !client) throw new Error('An import needs an API client.');
  const resume = checkpoint ? await resumePoint(checkpoint, client!, target, progress) : null;

  const report: ImportReport = {
    file,
    format,
    rows: 0,
    valid: 0,
    invalid: 0,
    invalidRows: [],
    titlesFromContent: 0,
    resumedAfterRow: resume?.lastRow ?? null,
    itemsSent: 0,
    batches: 0,
    preview: [],
    jobs: null,
    sync: null,
  };
  /** Every id the file holds, valid or not: sync never deletes an item that is still in the source. */
  const idsInFile = new Set<string>();
  /** Ids of the items pushed (in this run or the interrupted one): the jobs to follow. */
  const pushedIds = new Set<string>();
  let batch: { items: IngestItem[]; bytes: number; lastRow: number } = { items: [], bytes: 0, lastRow: 0 };
  let itemsSentTotal = resume?.itemsSent ?? 0;
  const source = openRecords(file, format, { delimiter: options.delimiter });

  const reportReading = (finished = false) =>
    progress?.reading({
      bytesRead: source.bytesRead(),
      totalBytes,
      rows: report.rows,
      itemsSent: report.itemsSent,
      invalid: report.invalid,
      finished,
    });

  const flush = async () => {
    if (batch.items.length === 0) return;
    const lastJobId = await sendBatch(client!, batch.items, () => report.batches++);
    report.itemsSent += batch.items.length;
    itemsSentTotal += batch.items.length;
    checkpoint?.save(batch.lastRow, itemsSentTotal, lastJobId);
    batch = { items: [], bytes: 0, lastRow: 0 };
    reportReading();
  };

  try {
    for await (const read of source.records) {
      report.rows++;
      const mapped = 'error' in read ? { error: { row: read.row, reason: read.error } } : mapRecord(read.record, mapping, target, read.row);
      if ('error' in mapped) {
        report.invalid++;
        if (mapped.error.externalId) idsInFile.add(mapped.error.externalId);
        if (report.invalidRows.length < MAX_REPORTED_INVALID) report.invalidRows.push(mapped.error);
        options.onInvalidRow?.(mapped.error);
        continue;
      }
      const item = mapped.item;
      report.valid++;
      if (mapped.titleFromContent) report.titlesFromContent++;
      idsInFile.add(item.externalId);
      pushedIds.add(item.externalId);
      if (options.dryRun) {
        if (report.preview.length < options.previewCount) report.preview.push(item);
        continue;
      }
      if (resume && read.row <= resume.lastRow) continue;
      const bytes = Buffer.byteLength(JSON.stringify(item));
      if (batch.items.length >= options.batchSize || (batch.items.length > 0 && batch.bytes + bytes > options.maxBatchBytes)) await flush();
      batch.items.push(item);
      batch.bytes += bytes + 1;
      batch.lastRow = read.row;
    }
    await flush();
  } finally {
    source.close();
  }
  reportReading(true); // the final state, also when the last rows were invalid or nothing was sent
  checkpoint?.remove();

  if (!options.dryRun && options.waitMs > 0 && pushedIds.size > 0) {
    progress?.note(`All rows sent. Waiting for ${pushedIds.size} job(s) to finish (--no-wait skips this).`);
    report.jobs = await followJobs(client!, target, pushedIds, options.waitMs, (state) => progress?.following(state));
  }

  if (options.sync && client) {
    if (!options.dryRun && report.rows === 0) {
      progress?.note('Sync skipped: the file holds no rows, and an empty export would delete everything.');
    } else {
      const absent = await findAbsentItems(client, target, idsInFile);
      if (options.dryRun || absent.length === 0) {
        report.sync = { absent: absent.length, deleted: 0, confirmed: false };
      } else {
        const confirmed = await options.confirmDelete(absent.length);
        const deleted = confirmed ? await deleteItems(client, target, absent) : 0;
        report.sync = { absent: absent.length, deleted, confirmed };
      }
    }
  }
  return report;
}

/**
 * The saved resume point, once the server is known to still hold the last job it records. A
 * database restored from a backup taken before that job would otherwise miss every row between
 * the backup and the checkpoint; the import then starts over (items already there end `skipped`).
 */
async function resumePoint(
  checkpoint: CheckpointFile,
  client: ApiClient,
  target: ImportTarget,
  progress: ImportOptions['progress'],
): Promise<Checkpoint | null> {
  const saved = checkpoint.load();
  if (!saved) return null;
  if (saved.lastJobId !== undefined) {
    const query = new URLSearchParams({ knowledgeBaseId: target.knowledgeBaseId });
    try {
      await client.request('GET', `/jobs/${encodeURIComponent(saved.lastJobId)}?${query}`);
    } catch (error) {
      if (!(error instanceof ErrorAnswer && error.status === 404)) throw error;
      progress?.note(
        `Starting over: LocalIQ no longer has job ${saved.lastJobId}, the last one this import sent (was its database restored from a backup?). Rows it already holds unchanged end skipped.`,
      );
      return null;
    }
  }
  progress?.note(`Resuming: rows up to ${saved.lastRow} were already sent (${saved.itemsSent} items).`);
  return saved;
}

/**
 * One `POST /ingest/bulk`; resolves with the job of its last item. A server configured with a
 * lower bulk or body limit than this batch answers `too_many_items` / `payload_too_large`; the
 * batch is then sent in halves.
 */
async function sendBatch(client: ApiClient, items: IngestItem[], counted: () => void): Promise<string> {
  try {
    const answer = await client.request<{ jobIds: string[] }>('POST', '/ingest/bulk', { items });
    counted();
    return answer.jobIds.at(-1)!;
  } catch (error) {
    const tooBig = error instanceof ErrorAnswer && (error.code === 'too_many_items' || error.code === 'payload_too_large');
    if (!tooBig || items.length === 1) throw error;
    const half = Math.ceil(items.length / 2);
    await sendBatch(client, items.slice(0, half), counted);
    return sendBatch(client, items.slice(half), counted);
  }
}
