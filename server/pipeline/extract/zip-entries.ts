import { inflateRawSync } from 'node:zlib';
import { ExtractionError } from './document.ts';

/**
 * Just enough of the ZIP format to guard a DOCX before a library unpacks it: the central
 * directory lists every entry with its sizes, so a zip bomb (a few kilobytes inflating to
 * gigabytes) is refused from what it declares, and an entry read here is inflated with a cap on
 * its output, whatever it declares.
 */
export type ZipEntry = { name: string; method: number; compressedSize: number; uncompressedSize: number; localHeaderOffset: number };

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

export function zipEntries(zip: Buffer): ZipEntry[] {
  // The end record is in the last 22 bytes plus at most a 65,535-byte comment.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 65_535); at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new ExtractionError('it is damaged or cut short: its table of contents (the ZIP directory) is missing');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) {
      throw new ExtractionError('it is damaged or cut short: its ZIP directory is broken');
    }
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    entries.push({
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      uncompressedSize: zip.readUInt32LE(at + 24),
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      localHeaderOffset: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** One entry's bytes, inflated to at most `maxBytes` (more is refused as a zip bomb would be). */
export function readZipEntry(zip: Buffer, entry: ZipEntry, maxBytes: number): Buffer {
  const at = entry.localHeaderOffset;
  if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL_FILE_HEADER) {
    throw new ExtractionError(`it is damaged: the part "${entry.name}" cannot be found`);
  }
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (data.length < entry.compressedSize) throw new ExtractionError('it is cut short: the file ends in the middle of its contents');
  if (entry.method === STORED) return data;
  if (entry.method !== DEFLATED) throw new ExtractionError(`it uses a compression method (${entry.method}) Word files do not use`);
  try {
    return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw zipBomb(maxBytes);
    throw new ExtractionError(`it is damaged: the part "${entry.name}" cannot be unpacked`);
  }
}

export function zipBomb(maxBytes: number): ExtractionError {
  return new ExtractionError(
    `it unpacks to more than ${Math.round(maxBytes / 1_000_000)} MB (a "zip bomb", or a document far larger than LocalIQ reads); it was not unpacked`,
  );
}
