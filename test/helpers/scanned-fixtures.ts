/**
 * Scanned documents written in code, for the text-recognition (OCR) tests and bench: each page's
 * text is drawn onto a picture (@napi-rs/canvas, with the DejaVu Serif font Debian ships), the
 * picture made the way scanners make them (a slightly skewed, grey JPEG; or a 1-bit black-and-white
 * image as fax-style scanners write), and the picture alone put on a PDF page with pdfkit: a PDF
 * with no text layer, as a scanner gives.
 */
import { crc32, deflateSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import PDFDocument from 'pdfkit';
import { collect } from './document-fixtures.ts';

export type ScanOptions = {
  /** Scan resolution (dots per inch): 200 is an office scanner's default, 300 its "fine". */
  dpi?: number;
  /** `grey`: a JPEG, as most scanners write; `bilevel`: 1 bit a pixel (a PNG here), as fax-style scans are. */
  colour?: 'grey' | 'bilevel';
  /** The page slightly turned, as paper never lies quite straight on the glass (degrees). */
  skewDegrees?: number;
  /** Pages (1-based) written as ordinary text instead, as when one scanned page is added to a document. */
  textLayerPages?: number[];
};

const A4_POINTS = { width: 595.28, height: 841.89 };
const FONT_POINTS = 11;

/** A PDF of scanned pages, each a list of paragraphs; no text layer at all. */
export async function scannedTextPdf(pages: string[][], options: ScanOptions = {}): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: false, info: { CreationDate: new Date('2026-01-01T00:00:00Z') } });
  for (const [i, paragraphs] of pages.entries()) {
    if (options.textLayerPages?.includes(i + 1)) {
      doc.addPage({ size: 'A4', margin: 50 });
      doc.font('Helvetica').fontSize(FONT_POINTS).text(paragraphs.join('\n\n'), { width: 495 });
      continue;
    }
    doc.addPage({ size: 'A4', margin: 0 });
    doc.image(await scannedPage(paragraphs, options), 0, 0, A4_POINTS);
  }
  return collect(doc);
}

/** One A4 page of paragraphs as a scanner's picture (JPEG or 1-bit PNG bytes). */
export async function scannedPage(paragraphs: string[], { dpi = 200, colour = 'grey', skewDegrees = 0.3 }: ScanOptions = {}): Promise<Buffer> {
  const scale = dpi / 72;
  const width = Math.round(A4_POINTS.width * scale);
  const height = Math.round(A4_POINTS.height * scale);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#f4f2ee';
  context.fillRect(0, 0, width, height);
  context.translate(width / 2, height / 2);
  context.rotate((skewDegrees * Math.PI) / 180);
  context.translate(-width / 2, -height / 2);
  context.fillStyle = '#1a1a1a';
  const fontPx = FONT_POINTS * scale;
  context.font = `${fontPx}px "DejaVu Serif"`;
  const margin = 60 * scale;
  const lineHeight = fontPx * 1.45;
  let y = margin + fontPx;
  for (const paragraph of paragraphs) {
    for (const line of wrap(paragraph, (text) => context.measureText(text).width, width - 2 * margin)) {
      context.fillText(line, margin, y);
      y += lineHeight;
    }
    y += lineHeight * 0.8;
  }
  if (colour === 'grey') return canvas.encode('jpeg', 75);
  const rgba = context.getImageData(0, 0, width, height).data;
  return bilevelPng(width, height, (x, row) => rgba[(row * width + x) * 4]! < 128);
}

function wrap(paragraph: string, measure: (text: string) => number, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of paragraph.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (line && measure(next) > maxWidth) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** A 1-bit greyscale PNG (0 black), which pdfkit puts in the PDF as a 1-bit image. */
function bilevelPng(width: number, height: number, isInk: (x: number, y: number) => boolean): Buffer {
  const rowBytes = Math.ceil(width / 8);
  const raw = Buffer.alloc((rowBytes + 1) * height, 0);
  for (let y = 0; y < height; y++) {
    const row = y * (rowBytes + 1);
    // Filter byte 0 (none), then the row's bits, 1 for paper.
    for (let x = 0; x < width; x++) if (!isInk(x, y)) raw[row + 1 + (x >> 3)]! |= 0x80 >> (x & 7);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([1, 0, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
