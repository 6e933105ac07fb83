import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ExtractionError } from '../../../../../server/pipeline/extract/document.ts';
import { extractFile } from '../../../../../server/pipeline/extract/extract-file.ts';
import { extractDocx } from '../../../../../server/pipeline/extract/docx.ts';
import { docxFile, pdfFile, scannedPdf, zipArchive, zipBombDocx } from '../../../../helpers/document-fixtures.ts';
import { scannedTextPdf } from '../../../../helpers/scanned-fixtures.ts';
import { tempDataDir } from '../../../../helpers/temp-data.ts';
import type { FileKind } from '../../../../../common/contract/files.ts';

const folder = tempDataDir();
let n = 0;
async function extract(bytes: Buffer | string, kind: FileKind, ocr = false) {
  const file = path.join(folder, `f${n++}`);
  fs.writeFileSync(file, bytes);
  return extractFile(file, kind, { ocr });
}
async function refused(bytes: Buffer | string, kind: FileKind, reason: RegExp, ocr = false) {
  await assert.rejects(extract(bytes, kind, ocr), (error: Error) => {
    assert.ok(error instanceof ExtractionError, `${error.name}: ${error.message}`);
    assert.match(error.message, reason);
    return true;
  });
}

describe('file extraction (in process)', () => {
  it('PDF: one section per page with its number, paragraphs kept, the Title property as title', async () => {
    const doc = await extract(await pdfFile([['First page text.', 'A second paragraph.'], [], ['Third page.']], { title: 'Catalogue' }), 'pdf');
    assert.equal(doc.title, 'Catalogue');
    assert.equal(doc.pages, 3);
    assert.deepEqual(doc.sections, [
      { page: 1, headings: [], text: 'First page text.\n\nA second paragraph.' },
      { page: 3, headings: [], text: 'Third page.' },
    ]);
  });

  it('PDF whose Title is what a printing tool filled in: a page address or Office\'s prefix is not the title', async () => {
    assert.equal((await extract(await pdfFile([['Text.']], { title: 'about:blank' }), 'pdf')).title, null);
    assert.equal((await extract(await pdfFile([['Text.']], { title: 'Microsoft Word - Price list.docx' }), 'pdf')).title, 'Price list');
  });

  it('PDF without a Title property: no title (the pipeline then takes the file name)', async () => {
    assert.equal((await extract(await pdfFile([['Text.']]), 'pdf')).title, null);
  });

  it('DOCX: sections at headings with their path, the Title property, else the first heading', async () => {
    const blocks = [
      { heading: 1 as const, text: 'Returns' },
      { text: 'Within 30 days.' },
      { heading: 2 as const, text: 'Damaged goods' },
      { text: 'Replaced free of charge.' },
      { heading: 1 as const, text: 'Warranty' },
      { text: 'Two years.' },
    ];
    const doc = await extract(await docxFile(blocks, 'Customer policy'), 'docx');
    assert.equal(doc.title, 'Customer policy');
    assert.deepEqual(doc.sections, [
      { headings: ['Returns'], text: 'Within 30 days.' },
      { headings: ['Returns', 'Damaged goods'], text: 'Replaced free of charge.' },
      { headings: ['Warranty'], text: 'Two years.' },
    ]);
    assert.equal((await extract(await docxFile(blocks), 'docx')).title, 'Returns');
  });

  it('Markdown: a CommonMark parse, headings as the path, no markup left in the text', async () => {
    const doc = await extract('# Guide\n\nIntro with a [link](https://x.example) and **bold**.\n\n## Returns\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n', 'markdown');
    assert.equal(doc.title, 'Guide');
    assert.deepEqual(doc.sections, [
      { headings: ['Guide'], text: 'Intro with a link and bold.' },
      { headings: ['Guide', 'Returns'], text: '- one\n- two\n\na | b\n1 | 2' },
    ]);
  });

  it('HTML: the page title, sections at headings through the HTML normaliser', async () => {
    const doc = await extract('<html><head><title>Shop &amp; FAQ</title><style>p{}</style></head><body><p>Intro.</p><h2>Shipping</h2><p>Fast <b>and</b> free.</p></body></html>', 'html');
    assert.equal(doc.title, 'Shop & FAQ');
    assert.deepEqual(doc.sections, [
      { headings: [], text: 'Intro.' },
      { headings: ['Shipping'], text: 'Fast and free.' },
    ]);
  });

  it('text: one section, a byte-order mark dropped', async () => {
    assert.deepEqual(await extract('\uFEFFLine one.\n\nLine two.', 'text'), { title: null, sections: [{ headings: [], text: 'Line one.\n\nLine two.' }] });
  });

  it('bad files are refused with a reason a person can act on', async () => {
    const pdf = await pdfFile([['Some text.']]);
    await refused(await scannedPdf(1), 'pdf', /none of its 1 page\(s\) has a text layer.*needs OCR/);
    await refused(await pdfFile([['x']], { userPassword: 'secret' }), 'pdf', /password-protected/);
    await refused(pdf.subarray(0, pdf.length >> 1), 'pdf', /damaged or cut short/);
    await refused('words', 'pdf', /its name says it is a PDF, but its content is text/);
    await refused(pdf, 'markdown', /its name says it is Markdown text, but its content is a PDF/);
    await refused(Buffer.from([0xff, 0xfe, 0x00, 0x41]), 'text', /its content is binary data/);
    await refused(Buffer.from('caf\xe9', 'latin1'), 'text', /binary data|not UTF-8/);
    await refused('', 'text', /empty/);
    await refused(Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.from('EncryptedPackage')]), 'docx', /password-protected/);
    await refused(Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(100)]), 'docx', /old Word document \(\.doc\)/);
    await refused(zipArchive([{ name: 'readme.txt', data: Buffer.from('hi') }]), 'docx', /not a Word document/);
    const docx = await docxFile([{ text: 'x' }]);
    await refused(docx.subarray(0, docx.length - 30), 'docx', /damaged or cut short/);
  });

  it('a scanned PDF with OCR off needs OCR, and the reason says how to turn it on', async () => {
    const scan = await scannedTextPdf([['The warehouse opens at seven.']], { dpi: 100 });
    await refused(scan, 'pdf', /none of its 1 page\(s\) has a text layer \(scanned pages or pictures of text\): it needs OCR.*LOCALIQ_OCR=on/);
  });

  it('with OCR on, a PDF of drawn shapes (no text, no pictures) says there is nothing to read', async () => {
    // No picture, so no recogniser is started: this stays in process.
    await refused(await scannedPdf(2), 'pdf', /none of its 2 page\(s\) has a text layer.*no pictures for text recognition \(OCR\) to read/, true);
  });

  it('a zip bomb is refused from its declared sizes, and from what it inflates to when it lies about them', async () => {
    const small = 2_000_000;
    await assert.rejects(extractDocx(await zipBombDocx(small + 1, true), small), /unpacks to more than 2 MB/);
    await assert.rejects(extractDocx(await zipBombDocx(small + 1, false), small), /unpacks to more than 2 MB/);
  });
});
