import { z } from 'zod';
import { PRIORITIES, sourceTypeSchema } from './ingest.ts';
import { limitSize } from './limits.ts';
import { pushedIdentifier } from './text-rules.ts';

/**
 * Files as knowledge: `POST /knowledge-bases/{knowledgeBaseId}/files` takes documents as
 * multipart/form-data; each file becomes one item, extracted by the pipeline workers.
 */

/** The kinds of document LocalIQ reads, by the file name's extension (lower case, with the dot). */
export const FILE_KINDS = {
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.txt': 'text',
  '.text': 'text',
} as const;
export type FileKind = (typeof FILE_KINDS)[keyof typeof FILE_KINDS];

/** The kind of document a file name says it is, or null for a name LocalIQ does not read. */
export function fileKindOf(fileName: string): FileKind | null {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return null;
  const extension = fileName.slice(dot).toLowerCase();
  return (FILE_KINDS as Record<string, FileKind>)[extension] ?? null;
}

export const SUPPORTED_FILE_EXTENSIONS = Object.keys(FILE_KINDS);

/** Why a hidden file or folder (a name starting with ".") is left out of a folder's upload. */
export const HIDDEN_REASON = 'hidden';

/**
 * Why a file found in a folder (by `localiq files add` or dropped on the dashboard) is left out of
 * an upload, or null to send it. `path` is its path under the folder given, with "/".
 */
export function fileSkipReason(path: string, size: number, maxBytes: number): string | null {
  if (path.split('/').some((name) => name.startsWith('.'))) return HIDDEN_REASON;
  return unsendableReason(path, size, maxBytes);
}

/** Why a file is not sent whatever its folder: a kind LocalIQ does not read, empty, or too large. */
export function unsendableReason(name: string, size: number, maxBytes: number): string | null {
  if (!fileKindOf(name)) return `not a kind of file LocalIQ reads (${SUPPORTED_FILE_EXTENSIONS.join(', ')})`;
  if (size === 0) return 'empty';
  if (size > maxBytes) return `larger than ${limitSize(maxBytes)}, the most one file may be`;
  return null;
}

/**
 * Upload limits. Defaults; the server can change them (LOCALIQ_FILE_MAX_BYTES,
 * LOCALIQ_FILES_MAX_REQUEST_BYTES, LOCALIQ_FILES_PER_REQUEST).
 */
export const FILE_LIMITS = {
  /** Bytes of one file: a 300-page PDF catalogue with pictures fits. */
  fileBytes: 50 * 1024 * 1024,
  /** Bytes of all files of one request together. */
  requestBytes: 200 * 1024 * 1024,
  /** Files in one request. */
  filesPerRequest: 100,
  /**
   * Characters of text extracted from one file: the specification's content limit (§3), where a
   * pushed item's content is held to 100,000 (LIMITS.contentLength) since a JSON push can be cut
   * into items and a document cannot. About 300 pages of dense prose, some 2,500 passages, which
   * hold one pipeline worker for about five minutes on two cores. A file with more fails with
   * that reason (cutting it short would leave its end unsearchable unnoticed); split it.
   */
  textCharacters: 1_000_000,
} as const;

/**
 * The form fields shared by every file of a request. Besides them, an `externalId` field names the
 * `file` part right after it; a file without one is named by its file name.
 */
export const fileUploadFieldsSchema = z.strictObject({
  integrationId: pushedIdentifier().default('files').describe('The integration the items belong to (default `files`).'),
  sourceType: sourceTypeSchema.default('PAGE'),
  priority: z.enum(PRIORITIES).optional(),
});
export type FileUploadFields = z.infer<typeof fileUploadFieldsSchema>;

/** What a file item's job carries besides the usual data: the original it is extracted from. */
export type FileReference = {
  /** SHA-256 of the file's bytes, in hex: the name of its original in the data folder. */
  sha256: string;
  /** The file's name as uploaded (no folders). */
  name: string;
  bytes: number;
};
