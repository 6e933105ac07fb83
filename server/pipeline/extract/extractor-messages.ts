import type { FileKind } from '../../../common/contract/files.ts';
import type { ExtractedDocument } from './document.ts';

export type ExtractRequest = { id: number; file: string; kind: FileKind };

/** `fileFault`: the file is at fault (ExtractionError), not the reader. */
export type ExtractReply = { id: number; ok: true; document: ExtractedDocument } | { id: number; ok: false; message: string; fileFault: boolean };
