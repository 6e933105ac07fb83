import fs from 'node:fs';
import readline from 'node:readline';
import { parse } from 'csv-parse';
import { csvRows } from '../../../common/import/csv-rows.ts';
import { delimiterFromName, type ImportFormat } from '../../../common/import/formats.ts';
import { FileFormatError, jsonRecord, readJsonArray, type ReadRecord } from '../../../common/import/json-array-stream.ts';

/**
 * Streaming readers for the import formats. None of them holds the file in memory: records are
 * yielded one at a time, so a file of any size imports with constant memory.
 *
 * `row` numbers a record for people and for resuming: the record's row as a spreadsheet shows it
 * for CSV (header = 1), the line for JSONL, the element position (1-based) for a JSON array.
 * Rows only increase.
 */
export type RecordSource = {
  records: AsyncIterable<ReadRecord>;
  /** Bytes of the file read so far, for progress. */
  bytesRead(): number;
  close(): void;
};

export function openRecords(file: string, format: ImportFormat, options: { delimiter?: string } = {}): RecordSource {
  const stream = fs.createReadStream(file);
  const delimiter = options.delimiter ?? delimiterFromName(file);
  const records = format === 'csv' ? readCsv(stream, delimiter) : format === 'jsonl' ? readJsonl(stream) : readJsonArray(stream);
  return { records, bytesRead: () => stream.bytesRead, close: () => stream.destroy() };
}

/** CSV through csv-parse's streaming parser. The first record is the header. */
async function* readCsv(stream: fs.ReadStream, delimiter?: string): AsyncGenerator<ReadRecord> {
  const parser = stream.pipe(
    parse({
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      ...(delimiter ? { delimiter } : {}),
    }),
  );
  stream.on('error', (error) => parser.destroy(error));
  const toRecord = csvRows();
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const read = toRecord(record);
      if (read) yield read;
    }
  } catch (error) {
    if (error instanceof FileFormatError) throw error;
    // A broken quote leaves the rest of the file ambiguous: stop rather than guess.
    throw new FileFormatError(`CSV: ${(error as Error).message}`);
  }
}

/** JSON Lines: one object per line; blank lines are ignored. */
async function* readJsonl(stream: fs.ReadStream): AsyncGenerator<ReadRecord> {
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let row = 0;
  for await (const line of lines) {
    row++;
    const text = row === 1 ? line.replace(/^\uFEFF/, '') : line;
    if (text.trim()) yield jsonRecord(row, text);
  }
}
