/**
 * A streaming reader for a top-level JSON array of objects, element by element. Pure and free
 * of Node APIs: the CLI reads files through it and the dashboard's import view reads
 * `File.stream()` through it, so both see the same rows and the same errors.
 */
import type { ImportRecord } from './import-mapping.ts';

/**
 * `row` numbers a record for people and for resuming (see the readers): here the element
 * position, 1-based.
 */
export type ReadRecord = { row: number; record: ImportRecord } | { row: number; error: string };

/** A fault that makes the rest of the file unreadable (as opposed to one bad row). */
export class FileFormatError extends Error {}

function isPlainObject(value: unknown): value is ImportRecord {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One JSON text (an array element, a JSON Lines line) as a record: an object is one, anything else a row error. */
export function jsonRecord(row: number, text: string): ReadRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { row, error: `not valid JSON (${(error as Error).message})` };
  }
  return isPlainObject(value) ? { row, record: value } : { row, error: 'is not a JSON object' };
}

/** Largest single element of a JSON array; larger ones mean a broken file, not a big record. */
const MAX_ELEMENT_CHARS = 32 * 1024 * 1024;

/**
 * A top-level JSON array, element by element. It tracks only strings and bracket depth to find
 * where each element ends, then parses that element alone: memory stays at one element.
 */
export async function* readJsonArray(stream: AsyncIterable<string | Uint8Array> & { setEncoding?: (e: 'utf8') => unknown }): AsyncGenerator<ReadRecord> {
  stream.setEncoding?.('utf8');
  // Byte chunks may split a character: the streaming decoder carries it over to the next chunk.
  const decoder = new TextDecoder('utf-8');
  let state: 'before' | 'between' | 'after' = 'before';
  let expectElement = true; // after '[' or ','
  let buffer = '';
  let collecting = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let row = 0;
  let first = true;

  const finish = (text: string): ReadRecord => jsonRecord(++row, text);

  for await (const piece of stream) {
    let chunk = typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true });
    if (first) {
      chunk = chunk.replace(/^\uFEFF/, '');
      first = false;
    }
    let start = collecting ? 0 : -1;
    const out: ReadRecord[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (collecting) {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') inString = false;
          continue;
        }
        if (c === '"') inString = true;
        else if (c === '{' || c === '[') depth++;
        else if ((c === '}' || c === ']') && depth > 0) depth--;
        else if (depth === 0 && (c === ',' || c === ']')) {
          out.push(finish(buffer + chunk.slice(start, i)));
          buffer = '';
          collecting = false;
          start = -1;
          if (c === ']') state = 'after';
          else expectElement = true;
        }
        continue;
      }
      if (c === ' ' || c === '\n' || c === '\r' || c === '\t') continue;
      if (state === 'before') {
        if (c !== '[') throw new FileFormatError('A JSON import file must hold one top-level array of objects.');
        state = 'between';
        continue;
      }
      if (state === 'after') throw new FileFormatError('Unexpected content after the top-level JSON array.');
      if (c === ']' && (row === 0 || !expectElement)) {
        state = 'after';
        continue;
      }
      if (c === ',' || c === ']') throw new FileFormatError(`Misplaced "${c}" after element ${row} of the JSON array.`);
      if (!expectElement) throw new FileFormatError(`Missing "," after element ${row} of the JSON array.`);
      expectElement = false;
      collecting = true;
      depth = 0;
      start = i;
      if (c === '"') inString = true;
      else if (c === '{' || c === '[') depth = 1;
    }
    if (collecting) {
      buffer += chunk.slice(start);
      if (buffer.length > MAX_ELEMENT_CHARS) throw new FileFormatError(`Element ${row + 1} of the JSON array is larger than 32 MB.`);
    }
    yield* out;
  }
  if (state !== 'after') throw new FileFormatError('The JSON array is not closed: the file ends early.');
}
