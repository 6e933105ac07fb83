import type { ImportApi } from './api-client.ts';
import { Batch, DEFAULT_BATCH_SIZE, sendBatch } from './batches.ts';
import type { CheckpointStore, ResumePoint } from './checkpoint-store.ts';
import type { ImportTarget } from './import-mapping.ts';
import { emptyTally, mappedRows, type OnProgress, type ProgressEvent, type ReadOptions, type ReadTally } from './read-rows.ts';

export type ImportState = ReadTally & {
  /** Items this run sent; rows acknowledged before a resume are not counted again. */
  itemsSent: number;
  /** Bulk requests the server acknowledged. */
  batches: number;
  /** Ids of every valid row, sent by this run or by the interrupted one it resumed: the jobs to follow. */
  pushedIds: Set<string>;
  /** The resume point this run continued from; null when it started at the first row. */
  resumedFrom: ResumePoint | null;
};

export type ImportOptions = ReadOptions & {
  api: ImportApi;
  /** Where the resume point is kept; null turns resuming off. */
  checkpoint: CheckpointStore | null;
  batchSize?: number;
  /** Awaited before each batch is sent (the dashboard's pause). */
  beforeBatch?: () => Promise<void>;
  onProgress?: OnProgress<ImportState>;
  /** A line for the person importing: resuming or starting over. */
  note?: (text: string) => void;
};

/**
 * Reads the file from the start and sends its valid items in batches, recording the last
 * acknowledged row after every batch. Rows up to the stored resume point were acknowledged by an
 * earlier run and are not sent again; the point is cleared once every row is sent.
 */
export async function importRecords(options: ImportOptions): Promise<ImportState> {
  const { api, checkpoint, signal } = options;
  const resumedFrom = checkpoint ? await resumePoint(checkpoint, api, options.target, options.note) : null;
  const state: ImportState = { ...emptyTally(options.totalBytes), itemsSent: 0, batches: 0, pushedIds: new Set(), resumedFrom };
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  let itemsSentTotal = resumedFrom?.itemsSent ?? 0;
  let batch = new Batch(batchSize);

  const progress = (event: ProgressEvent) => {
    state.bytesRead = options.source.bytesRead();
    return options.onProgress?.(state, event);
  };
  const flush = async () => {
    if (batch.items.length === 0) return;
    await options.beforeBatch?.();
    signal?.throwIfAborted();
    const lastJobId = await sendBatch(api, batch.items, () => state.batches++);
    state.itemsSent += batch.items.length;
    itemsSentTotal += batch.items.length;
    checkpoint?.save({ lastRow: batch.lastRow, itemsSent: itemsSentTotal, lastJobId });
    batch = new Batch(batchSize);
    await progress('batch');
  };

  for await (const { row, item } of mappedRows(options, state, () => progress('row'))) {
    state.pushedIds.add(item.externalId);
    if (resumedFrom && row <= resumedFrom.lastRow) continue;
    if (!batch.add(item, row)) {
      await flush();
      batch.add(item, row);
    }
  }
  await flush();
  checkpoint?.clear();
  await progress('end');
  return state;
}

/**
 * The stored resume point, once LocalIQ is known to still hold the last job it records. A
 * database restored from a backup taken before that job would otherwise miss every row between
 * the backup and the checkpoint; the import then starts over (items already there end `skipped`).
 */
async function resumePoint(checkpoint: CheckpointStore, api: ImportApi, target: ImportTarget, note?: (text: string) => void): Promise<ResumePoint | null> {
  const saved = checkpoint.load();
  if (!saved) return null;
  if (saved.lastJobId !== undefined && api.jobExists && !(await api.jobExists(target, saved.lastJobId))) {
    note?.(
      `Starting over: LocalIQ no longer has job ${saved.lastJobId}, the last one this import sent (was its database restored from a backup?). Rows it already holds unchanged end skipped.`,
    );
    return null;
  }
  note?.(`Resuming: rows up to ${saved.lastRow} were already sent (${saved.itemsSent} items).`);
  return saved;
}
