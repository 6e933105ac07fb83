import type { IngestItem } from '../contract/ingest.ts';
import { type ImportMapping, type ImportTarget, mapRecord, type RowError } from './import-mapping.ts';
import type { ReadRecord } from './json-array-stream.ts';

/** Records of one file as a reader yields them, with the bytes read so far for a progress bar. */
export type RecordSource = { records: AsyncIterable<ReadRecord>; bytesRead(): number };

/** What reading a file through the mapping has found so far. */
export type ReadTally = {
  rows: number;
  valid: number;
  invalid: number;
  /** Valid rows without a title: their item's title is the start of the content (mapRecord). */
  titlesFromContent: number;
  bytesRead: number;
  totalBytes: number;
  /** The first invalid rows, up to the caller's `keepInvalidRows`; `invalid` counts them all. */
  invalidRows: RowError[];
  /** Every externalId the file holds, valid row or not: sync never deletes an item still in the source. */
  idsInFile: Set<string>;
};

/** When a progress callback runs: after each row, after each acknowledged batch, once at the end. */
export type ProgressEvent = 'row' | 'batch' | 'end';
/** The reading waits for a returned promise (the dashboard lets the page paint). */
export type OnProgress<State> = (state: State, event: ProgressEvent) => void | Promise<void>;

export type ReadOptions = {
  source: RecordSource;
  totalBytes: number;
  mapping: ImportMapping;
  target: ImportTarget;
  keepInvalidRows: number;
  onInvalidRow?: (error: RowError) => void;
  /** Checked before each row: an aborted import stops with the signal's reason. */
  signal?: AbortSignal;
};

export function emptyTally(totalBytes: number): ReadTally {
  return { rows: 0, valid: 0, invalid: 0, titlesFromContent: 0, bytesRead: 0, totalBytes, invalidRows: [], idsInFile: new Set() };
}

/**
 * Maps every record of the file, counting it in `tally`, and yields the valid items with their
 * row. `afterRow` runs once a row is fully handled, including what the consumer did with its item.
 */
export async function* mappedRows(
  options: ReadOptions,
  tally: ReadTally,
  afterRow: () => void | Promise<void>,
): AsyncGenerator<{ row: number; item: IngestItem }> {
  const { source, mapping, target } = options;
  for await (const read of source.records) {
    options.signal?.throwIfAborted();
    tally.rows++;
    const mapped = 'error' in read ? { error: { row: read.row, reason: read.error } } : mapRecord(read.record, mapping, target, read.row);
    if ('error' in mapped) {
      tally.invalid++;
      if (mapped.error.externalId) tally.idsInFile.add(mapped.error.externalId);
      if (tally.invalidRows.length < options.keepInvalidRows) tally.invalidRows.push(mapped.error);
      options.onInvalidRow?.(mapped.error);
    } else {
      tally.valid++;
      if (mapped.titleFromContent) tally.titlesFromContent++;
      tally.idsInFile.add(mapped.item.externalId);
      yield { row: read.row, item: mapped.item };
    }
    const pending = afterRow();
    if (pending) await pending;
  }
}
