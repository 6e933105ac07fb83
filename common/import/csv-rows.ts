/**
 * How a CSV file's parsed records become import records. Pure and free of Node APIs: the CLI's
 * reader and the dashboard's import view both apply it, so both accept the same headers and
 * report the same rows.
 */
import type { ImportRecord } from './import-mapping.ts';
import { FileFormatError, type ReadRecord } from './json-array-stream.ts';

/** The first record as column names: trimmed, none empty, none twice. */
function csvHeader(record: string[]): string[] {
  const header = record.map((h) => h.trim());
  const seen = new Set<string>();
  for (const name of header) {
    if (!name) throw new FileFormatError('The CSV header has an empty column name.');
    if (seen.has(name)) throw new FileFormatError(`The CSV header names column "${name}" twice.`);
    seen.add(name);
  }
  return header;
}

/** One data record keyed by the header, or a row error when its field count differs. */
function csvRecord(header: string[], row: number, record: string[]): ReadRecord {
  if (record.length !== header.length) return { row, error: `has ${record.length} fields, the header has ${header.length}` };
  // No prototype: a column named "__proto__" stays an ordinary column.
  const out = Object.create(null) as ImportRecord;
  header.forEach((name, i) => (out[name] = record[i]));
  return { row, record: out };
}

/**
 * Takes a CSV parser's records one at a time: the first is the header (null comes back), each
 * later one becomes a record numbered as a spreadsheet shows it (header = 1), even when its
 * cells hold line breaks.
 */
export function csvRows(): (record: string[]) => ReadRecord | null {
  let header: string[] | null = null;
  let row = 0;
  return (record) => {
    row++;
    if (!header) {
      header = csvHeader(record);
      return null;
    }
    return csvRecord(header, row, record);
  };
}
