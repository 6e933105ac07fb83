import type { FileKind } from '../../../common/contract/files.ts';

/** What a file's first bytes say it is: the extension alone is not believed. */
export type SniffedKind = 'pdf' | 'zip' | 'text' | 'binary';

export function sniff(bytes: Uint8Array): SniffedKind {
  const head = Buffer.from(bytes.subarray(0, 1024));
  // A PDF may have a little junk before its header (the format allows 1,024 bytes of it).
  if (head.includes('%PDF-')) return 'pdf';
  if (head.length >= 4 && head.readUInt32LE(0) === 0x04034b50) return 'zip';
  return looksLikeText(bytes) ? 'text' : 'binary';
}

/** UTF-8 without NUL bytes (the first 64 kB decide; a character cut at their end is allowed). */
function looksLikeText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 65_536);
  if (sample.includes(0)) return false;
  try {
    // `stream` when the sample is not the whole file: its last character may go on beyond it.
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: sample.length < bytes.length });
    return true;
  } catch {
    return false;
  }
}

const NAMES: Record<SniffedKind, string> = {
  pdf: 'a PDF',
  zip: 'a ZIP archive',
  text: 'text',
  binary: 'binary data (not text, PDF or Word)',
};

/** Why the content does not match the name's kind, or null when it does. */
export function mismatch(declared: FileKind, found: SniffedKind): string | null {
  const expected: SniffedKind = declared === 'pdf' ? 'pdf' : declared === 'docx' ? 'zip' : 'text';
  if (found === expected) return null;
  const said = { pdf: 'a PDF', docx: 'a Word document', markdown: 'Markdown text', html: 'an HTML page', text: 'text' }[declared];
  return `its name says it is ${said}, but its content is ${NAMES[found]}`;
}
