/**
 * Documents written in code for the files-as-knowledge tests (no binary fixtures): PDFs with
 * pdfkit, Word documents with `docx`, and the hostile files (a scan with no text layer, a
 * password, a zip bomb, a pathological PDF) built byte by byte where no library makes them.
 */
import { createDeflate, createDeflateRaw, deflateRawSync, deflateSync } from 'node:zlib';
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import PDFDocument from 'pdfkit';

export type PdfOptions = { title?: string; userPassword?: string };

/** A PDF with these pages, each a list of paragraphs (set apart by a blank line). */
export function pdfFile(pages: string[][], options: PdfOptions = {}): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    // A fixed date: the same pages make the same bytes (pdfkit otherwise stamps the time in).
    info: { CreationDate: new Date('2026-01-01T00:00:00Z'), ...(options.title ? { Title: options.title } : {}) },
    ...(options.userPassword ? { userPassword: options.userPassword, ownerPassword: `${options.userPassword}-owner` } : {}),
  });
  for (const paragraphs of pages) {
    doc.addPage({ size: 'A4', margin: 50 });
    doc.font('Helvetica').fontSize(11);
    for (const paragraph of paragraphs) {
      doc.text(paragraph, { width: 495 });
      doc.moveDown(1.5);
    }
  }
  return collect(doc);
}

/** A "scanned" PDF: its pages are drawn shapes, with no text layer at all. */
export function scannedPdf(pageCount = 2): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: false });
  for (let i = 0; i < pageCount; i++) {
    doc.addPage({ size: 'A4' });
    for (let line = 0; line < 30; line++) doc.rect(50, 60 + line * 22, 300 + ((line * 37) % 180), 9).fill('#333');
  }
  return collect(doc);
}

/** The bytes of a pdfkit document, once it is ended. */
export function collect(doc: PDFKit.PDFDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.end();
  });
}

/**
 * A one-page PDF whose page draws `operators` text operations (compressed, so the file stays
 * small): the parser's work grows with the operations, not the bytes, as in a PDF built to hold
 * a reader for minutes.
 */
export function pathologicalPdf(operators: number): Buffer {
  const op = Buffer.from('BT /F1 1 Tf 1 1 Td (a) Tj ET\n');
  const content = deflateSync(Buffer.concat(Array.from({ length: 1000 }, () => op)), { level: 9 });
  // The same 1,000 operations, repeated by concatenating the page's content streams.
  const repeats = Math.ceil(operators / 1000);
  const objects: string[] = [];
  const streams: number[] = [];
  const first = 5;
  for (let i = 0; i < repeats; i++) streams.push(first + i);
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push('<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [${streams.map((n) => `${n} 0 R`).join(' ')}] >>`);
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const add = (buffer: Buffer) => {
    parts.push(buffer);
    length += buffer.length;
  };
  objects.forEach((body, i) => {
    offsets.push(length);
    add(Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`));
  });
  for (let i = 0; i < repeats; i++) {
    offsets.push(length);
    add(Buffer.from(`${first + i} 0 obj\n<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`));
    add(content);
    add(Buffer.from('\nendstream\nendobj\n'));
  }
  const xref = length;
  const count = offsets.length + 1;
  add(Buffer.from(`xref\n0 ${count}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`));
  add(Buffer.from(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`));
  return Buffer.concat(parts);
}

export type DocxBlock = { heading?: 1 | 2 | 3; text: string };

/** A Word document of headings and paragraphs, with its Title property when given. */
export function docxFile(blocks: DocxBlock[], title?: string): Promise<Buffer> {
  const levels = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 } as const;
  const document = new Document({
    ...(title ? { title } : {}),
    sections: [{ children: blocks.map((block) => new Paragraph(block.heading ? { text: block.text, heading: levels[block.heading] } : { text: block.text })) }],
  });
  return Packer.toBuffer(document);
}

/**
 * A .docx that is a zip bomb: its word/document.xml inflates to `inflatedBytes` of zeros from a
 * few hundred kilobytes. `honest`: the ZIP directory declares the real size; otherwise it claims
 * a small one, as a bomb meant to pass a size check would.
 */
export async function zipBombDocx(inflatedBytes: number, honest: boolean): Promise<Buffer> {
  // Deflated as a stream, a megabyte at a time: the whole would take as much memory as it inflates to.
  const deflater = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => deflater.on('end', resolve));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let left = inflatedBytes; left > 0; left -= zeros.length) {
    if (!deflater.write(zeros.subarray(0, Math.min(left, zeros.length)))) await new Promise((resolve) => deflater.once('drain', resolve));
  }
  deflater.end();
  await ended;
  return zipArchive([
    { name: '[Content_Types].xml', data: Buffer.from('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>') },
    { name: 'word/document.xml', data: Buffer.alloc(0), raw: { compressed: Buffer.concat(out), size: honest ? inflatedBytes : 4096 } },
  ]);
}

type ZipInput = { name: string; data: Buffer; raw?: { compressed: Buffer; size: number } };

/** A ZIP archive (deflated entries; CRCs left 0, which the reader under test does not check first). */
export function zipArchive(entries: ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const compressed = entry.raw?.compressed ?? deflateRawSync(entry.data);
    const size = entry.raw?.size ?? entry.data.length;
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * A decompression bomb: a one-page PDF whose content stream inflates to `inflatedBytes` of spaces
 * (about 1,000 to 1 compressed, so 1.5 MB on disk is 1.5 GB to the reader). The page also shows
 * `text`, in a content stream of its own before the spaces, so a reader that survived it would
 * find text.
 */
export async function deflateBombPdf(inflatedBytes: number, text = 'Nothing to see here.'): Promise<Buffer> {
  // Deflated as a stream, a megabyte at a time: the whole would take as much memory as it inflates to.
  const deflater = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => deflater.on('end', resolve));
  const spaces = Buffer.alloc(1024 * 1024, 0x20);
  for (let left = inflatedBytes; left > 0; left -= spaces.length) {
    if (!deflater.write(spaces.subarray(0, Math.min(left, spaces.length)))) await new Promise((resolve) => deflater.once('drain', resolve));
  }
  deflater.end();
  await ended;
  const bomb = Buffer.concat(out);
  const shown = Buffer.from(`BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET\n`);
  const objects: Array<string | { dict: string; data: Buffer }> = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [5 0 R 6 0 R] >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    { dict: `<< /Length ${shown.length} >>`, data: shown },
    { dict: `<< /Length ${bomb.length} /Filter /FlateDecode >>`, data: bomb },
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const add = (buffer: Buffer) => {
    parts.push(buffer);
    length += buffer.length;
  };
  objects.forEach((body, i) => {
    offsets.push(length);
    if (typeof body === 'string') return add(Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`));
    add(Buffer.from(`${i + 1} 0 obj\n${body.dict}\nstream\n`));
    add(body.data);
    add(Buffer.from('\nendstream\nendobj\n'));
  });
  const xref = length;
  const count = offsets.length + 1;
  add(Buffer.from(`xref\n0 ${count}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`));
  add(Buffer.from(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`));
  return Buffer.concat(parts);
}
