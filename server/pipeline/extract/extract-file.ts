import fs from 'node:fs';
import type { FileKind } from '../../../common/contract/files.ts';
import { type ExtractedDocument, ExtractionError } from './document.ts';
import { extractDocx } from './docx.ts';
import { extractHtml } from './html.ts';
import { extractMarkdown } from './markdown.ts';
import { extractPdf, type PdfOptions } from './pdf.ts';
import { mismatch, sniff } from './sniff.ts';
import { extractText } from './text.ts';

/** Compound files of old Office formats; an encrypted .docx is one too (its package inside, encrypted). */
const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/**
 * Reads one file of the kind its name says, after checking its bytes agree: a file named .pdf
 * that is not a PDF fails with a reason rather than with a parser's message.
 */
export async function extractFile(file: string, kind: FileKind, pdfOptions: PdfOptions = { ocr: false }): Promise<ExtractedDocument> {
  const bytes = fs.readFileSync(file);
  if (bytes.length === 0) throw new ExtractionError('the file is empty');
  if (kind === 'docx' && bytes.subarray(0, 8).equals(OLE_MAGIC)) {
    throw new ExtractionError(
      bytes.includes('EncryptedPackage', 0, 'utf16le') || bytes.includes('EncryptedPackage')
        ? 'the Word document is password-protected; save a copy without a password and upload that'
        : 'it is an old Word document (.doc), not a .docx; save it as .docx (Word: File › Save As) and upload that',
    );
  }
  const problem = mismatch(kind, sniff(bytes));
  if (problem) throw new ExtractionError(problem);
  switch (kind) {
    case 'pdf':
      return extractPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), pdfOptions);
    case 'docx':
      return extractDocx(bytes);
    case 'markdown':
      return extractMarkdown(decodeText(bytes));
    case 'html':
      return extractHtml(decodeText(bytes));
    case 'text':
      return extractText(decodeText(bytes));
  }
}

function decodeText(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ExtractionError('it is not UTF-8 text (save it as UTF-8 and upload it again)');
  }
}
