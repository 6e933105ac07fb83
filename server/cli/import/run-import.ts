import fs from 'node:fs';
import type { ImportMapping, ImportTarget, RowError } from '../../../common/import/import-mapping.ts';
import type { IngestItem } from '../../../common/contract/ingest.ts';
import type { JobStatus } from '../../../common/contract/jobs.ts';
import type { ImportApi } from '../../../common/import/api-client.ts';
import { dryRunRecords } from '../../../common/import/dry-run.ts';
import { followJobs } from '../../../common/import/follow-jobs.ts';
import { importRecords } from '../../../common/import/import-records.ts';
import type { OnProgress, ReadTally } from '../../../common/import/read-rows.ts';
import { deleteItems, findAbsentItems, SYNC_SKIPPED_EMPTY_FILE } from '../../../common/import/sync.ts';
import { CheckpointFile, checkpointKey } from './checkpoint.ts';
import type { ImportFormat } from '../../../common/import/formats.ts';
import { openRecords } from './readers.ts';

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
  api: ImportApi | null;
  batchSize: number;
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
  jobs: (Record<JobStatus, number> & { timedOut: boolean }) | null;
  sync: { absent: number; deleted: number; confirmed: boolean } | null;
};

/** Invalid rows kept for the report; all of them are still passed to onInvalidRow. */
const MAX_REPORTED_INVALID = 10_000;

/**
 * `localiq import`'s run on the import core (common/import): the file read from disk, the
 * checkpoint beside it, then the wait for the jobs and the sync, with the command's report.
 */
export async function runImport(options: ImportOptions): Promise<ImportReport> {
  const { file, format, mapping, target, api, progress } = options;
  const totalBytes = fs.statSync(file).size;
  const checkpoint = options.checkpointPath && !options.dryRun
    ? new CheckpointFile(options.checkpointPath, checkpointKey(file, { format, delimiter: options.delimiter ?? null, mapping, target }), file)
    : null;
  if (!options.dryRun && !api) throw new Error('An import needs an API client.');

  const source = openRecords(file, format, { delimiter: options.delimiter });
  const reading = { source, totalBytes, mapping, target, keepInvalidRows: MAX_REPORTED_INVALID, onInvalidRow: options.onInvalidRow };
  // The bar moves per acknowledged batch: rows read ahead of what is sent are not progress yet.
  const showReading: OnProgress<ReadTally & { itemsSent?: number }> = (state, event) => {
    if (event === 'row') return;
    const { bytesRead, rows, itemsSent = 0, invalid } = state;
    progress?.reading({ bytesRead, totalBytes, rows, itemsSent, invalid, finished: event === 'end' });
  };
  let read;
  try {
    read = options.dryRun
      ? await dryRunRecords({ ...reading, previewCount: options.previewCount, onProgress: showReading })
      : await importRecords({ ...reading, api: api!, checkpoint, batchSize: options.batchSize, onProgress: showReading, note: (text) => progress?.note(text) });
  } finally {
    source.close();
  }

  const sent = 'itemsSent' in read ? read : null;
  const report: ImportReport = {
    file,
    format,
    rows: read.rows,
    valid: read.valid,
    invalid: read.invalid,
    invalidRows: read.invalidRows,
    titlesFromContent: read.titlesFromContent,
    resumedAfterRow: sent?.resumedFrom?.lastRow ?? null,
    itemsSent: sent?.itemsSent ?? 0,
    batches: sent?.batches ?? 0,
    preview: 'preview' in read ? read.preview : [],
    jobs: null,
    sync: null,
  };

  if (sent && options.waitMs > 0 && sent.pushedIds.size > 0) {
    progress?.note(`All rows sent. Waiting for ${sent.pushedIds.size} job(s) to finish (--no-wait skips this).`);
    // done and total drive the progress bar; the report counts the states.
    const { done, total, ...jobs } = await followJobs(api!, target, sent.pushedIds, {
      waitMs: options.waitMs,
      onTally: (tally) => progress?.following(tally),
    });
    report.jobs = jobs;
  }

  if (options.sync && api) {
    if (!options.dryRun && report.rows === 0) {
      progress?.note(SYNC_SKIPPED_EMPTY_FILE);
    } else {
      const absent = await findAbsentItems(api, target, read.idsInFile);
      if (options.dryRun || absent.length === 0) {
        report.sync = { absent: absent.length, deleted: 0, confirmed: false };
      } else {
        const confirmed = await options.confirmDelete(absent.length);
        const deleted = confirmed ? await deleteItems(api, target, absent) : 0;
        report.sync = { absent: absent.length, deleted, confirmed };
      }
    }
  }
  return report;
}
