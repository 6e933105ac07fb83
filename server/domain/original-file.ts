import { FILE_KINDS, type FileKind, fileKindOf } from '../../common/contract/files.ts';

/** How the dashboard serves an uploaded file as it was sent. */
export type OriginalFile = { kind: FileKind; contentType: string; fileName: string };

const CONTENT_TYPES: Record<FileKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  markdown: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  text: 'text/plain; charset=utf-8',
};

const EXTENSION_OF: Record<FileKind, string> = Object.fromEntries(
  Object.entries(FILE_KINDS)
    .reverse()
    .map(([extension, kind]) => [kind, extension]),
) as Record<FileKind, string>;

/**
 * What an original is, from its first bytes and the names its item has (the externalId, which is
 * the file's name or path unless the uploader chose one, and the title). Only a file that was
 * extracted is served, so its bytes matched its name then: a PDF or a Word document (a ZIP) is
 * known by its bytes; text takes its kind (Markdown, HTML, plain) from the first name that says
 * one, else it is plain text.
 */
export function describeOriginal(head: Uint8Array, names: string[]): OriginalFile {
  const start = Buffer.from(head.subarray(0, 1024));
  const bytesSay: FileKind | null = start.includes('%PDF-') ? 'pdf' : start.length >= 4 && start.readUInt32LE(0) === 0x04034b50 ? 'docx' : null;
  const baseNames = names.map((name) => name.split(/[\\/]/).pop()!.trim()).filter(Boolean);
  const textKind = (kind: FileKind | null) => kind !== null && kind !== 'pdf' && kind !== 'docx';
  const named = baseNames.find((name) => {
    const kind = fileKindOf(name);
    return bytesSay ? kind === bytesSay : textKind(kind);
  });
  const kind = bytesSay ?? (named ? fileKindOf(named)! : 'text');
  const fileName = named ?? `${baseNames[0] || 'document'}${EXTENSION_OF[kind]}`;
  return { kind, contentType: CONTENT_TYPES[kind], fileName };
}

/**
 * `Content-Disposition: inline` with the file's name: an ASCII fallback without quotes,
 * separators or control characters, and the exact name encoded (RFC 6266 / RFC 8187).
 */
export function inlineDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^A-Za-z0-9._ -]/g, '_').slice(0, 200) || 'document';
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
