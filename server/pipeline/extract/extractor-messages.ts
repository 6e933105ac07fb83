import type { FileKind } from '../../../common/contract/files.ts';
import type { ExtractedDocument } from './document.ts';

export type ExtractRequest = { id: number; file: string; kind: FileKind; ocr: boolean };

/**
 * `fileFault`: the file is at fault (ExtractionError), not the reader. `progress`: how far a long
 * extraction has got (the page being recognised), for the reason given if it runs out of time.
 */
export type ExtractReply =
  | { id: number; ok: true; document: ExtractedDocument }
  | { id: number; ok: false; message: string; fileFault: boolean }
  | { id: number; progress: string };

/** Sent once by a reader whose code has loaded: a file's time cap starts then, not while it starts. */
export type ReaderReady = { ready: true };
