import { parse } from 'csv-parse/browser/esm';
import { csvRows } from '../../../../common/import/csv-rows.ts';
import { delimiterFromName, type ImportFormat } from '../../../../common/import/formats.ts';
import { FileFormatError, jsonRecord, readJsonArray, type ReadRecord } from '../../../../common/import/json-array-stream.ts';

/**
 * Streaming readers for an import file chosen in the browser. Records come one at a time from
 * `File.stream()`, so a large file imports with constant memory. Rows are numbered the way the
 * command-line import numbers them: the spreadsheet row for CSV (header = 1), the line for JSONL,
 * the element position for a JSON array.
 */
/** A readable byte source: a File, or anything with the same `stream()` and `size`. */
export type ByteSource = { name: string; size: number; stream(): ReadableStream<Uint8Array> };

export type RecordReader = { records: AsyncGenerator<ReadRecord>; bytesRead(): number };

export function openRecords(file: ByteSource, format: ImportFormat): RecordReader {
  let bytes = 0;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const reader = file.stream().getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        bytes += value.byteLength;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  const records = format === 'csv' ? readCsv(chunks(), delimiterFromName(file.name)) : format === 'jsonl' ? readJsonl(chunks()) : readJsonArray(chunks());
  return { records, bytesRead: () => bytes };
}

async function* decode(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let first = true;
  for await (const chunk of chunks) {
    let text = decoder.decode(chunk, { stream: true });
    if (first && text) {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/**
 * CSV through csv-parse's streaming parser (its browser build), with the command-line reader's
 * rules: the first record is the header, header names must be unique and non-empty, a row with a
 * different number of fields is an invalid row, a broken quote stops the file.
 */
async function* readCsv(chunks: AsyncIterable<Uint8Array>, delimiter?: string): AsyncGenerator<ReadRecord> {
  const parser = parse({ relax_column_count: true, skip_empty_lines: true, ...(delimiter ? { delimiter } : {}) });
  const queue: string[][] = [];
  let failure: Error | null = null;
  let ended = false;
  let wake: (() => void) | null = null;
  parser.on('data', (record: string[]) => queue.push(record));
  parser.on('error', (error: Error) => {
    failure = error;
    wake?.();
  });
  parser.on('end', () => {
    ended = true;
    wake?.();
  });
  const toRecord = csvRows();
  function* drain(): Generator<ReadRecord> {
    if (failure) throw new FileFormatError(`CSV: ${(failure as Error).message}`);
    while (queue.length) {
      const read = toRecord(queue.shift()!);
      if (read) yield read;
    }
  }
  for await (const text of decode(chunks)) {
    await new Promise<void>((resolve) => parser.write(text, () => resolve()));
    yield* drain();
  }
  const done = new Promise<void>((resolve) => {
    wake = resolve;
    if (ended || failure) resolve();
  });
  parser.end();
  await done;
  yield* drain();
}

/** JSON Lines: one object per line; blank lines are ignored. */
async function* readJsonl(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ReadRecord> {
  let buffer = '';
  let row = 0;
  const parseLine = (line: string): ReadRecord | null => {
    row++;
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    return text.trim() ? jsonRecord(row, text) : null;
  };
  for await (const text of decode(chunks)) {
    buffer += text;
    let end: number;
    while ((end = buffer.indexOf('\n')) >= 0) {
      const read = parseLine(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      if (read) yield read;
    }
  }
  if (buffer) {
    const read = parseLine(buffer);
    if (read) yield read;
  }
}
