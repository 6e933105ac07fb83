/**
 * Text recognition (OCR) of scanned PDFs: real tesseract.js with its model from node_modules, in
 * the real extraction thread and the real pipeline. (Its "off" side, the "needs OCR" reason,
 * is in test/unit/server/pipeline/extract/extract-file.test.ts and files.test.ts.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { tempDataDir } from '../helpers/temp-data.ts';
import { pdfFile } from '../helpers/document-fixtures.ts';
import { scannedTextPdf } from '../helpers/scanned-fixtures.ts';
import { ExtractionError } from '../../server/pipeline/extract/document.ts';
import { FileExtractor } from '../../server/pipeline/extract/extractor.ts';

type Server = Awaited<ReturnType<typeof startPipelineServer>>;

const PRICE_PAGES = [
  ['Spring price list', 'The alpine rain jacket costs 189 euros and has taped seams.'],
  ['Hiking boots with a waterproof membrane cost 149 euros.', 'Delivery within Germany is free for orders above 50 euros.'],
];

/** Lower-case words, punctuation left out: what search would match. */
const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

function missing(expected: string, found: string): string[] {
  const got = words(found);
  return [...words(expected)].filter((word) => !got.has(word));
}

async function upload(server: Server, kb: string, name: string, bytes: Buffer) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  const res = await fetch(`${server.url}/knowledge-bases/${kb}/files`, { method: 'POST', headers: { 'x-api-key': server.key }, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

describe('OCR of scanned PDFs (tesseract.js, offline)', () => {
  const folder = tempDataDir();
  const write = (name: string, bytes: Buffer) => {
    const file = path.join(folder, name);
    fs.writeFileSync(file, bytes);
    return file;
  };

  it('the extraction thread reads a grey scan and a black-and-white scan, page by page', async () => {
    const extractor = new FileExtractor({ timeoutMs: 120_000, memoryMb: 512, ocr: true });
    try {
      for (const colour of ['grey', 'bilevel'] as const) {
        const document = await extractor.extract(write(`${colour}.pdf`, await scannedTextPdf(PRICE_PAGES, { colour, dpi: 200 })), 'pdf');
        assert.equal(document.pages, 2);
        assert.deepEqual(document.ocrPages, [1, 2], colour);
        assert.deepEqual(document.sections.map((s) => s.page), [1, 2], `${colour}: each page its own section, numbered`);
        PRICE_PAGES.forEach((paragraphs, i) => {
          const text = document.sections[i]!.text;
          assert.deepEqual(missing(paragraphs.join(' '), text), [], `${colour}, page ${i + 1}: ${text}`);
        });
        assert.match(document.sections[0]!.text, /189 euros/);
      }
    } finally {
      await extractor.close();
    }
  });

  it('a PDF with text pages and a scanned page: only the scanned page is recognised', async () => {
    const extractor = new FileExtractor({ timeoutMs: 120_000, memoryMb: 512, ocr: true });
    try {
      // A signed page scanned into a document that has a text layer.
      const pages = [['The catalogue has a text layer.'], ['Signed by the shop owner on the first of March.'], ['Terms and conditions apply.']];
      const document = await extractor.extract(write('mixed.pdf', await scannedTextPdf(pages, { textLayerPages: [1, 3] })), 'pdf');
      assert.deepEqual(document.ocrPages, [2]);
      assert.deepEqual(document.sections.map((s) => s.page), [1, 2, 3]);
      assert.equal(document.sections[0]!.text, 'The catalogue has a text layer.');
      assert.deepEqual(missing(pages[1]!.join(' '), document.sections[1]!.text), [], document.sections[1]!.text);
    } finally {
      await extractor.close();
    }
  });

  it('the time cap applies to OCR: the reason says which page it had reached, and the next file is read', async () => {
    const extractor = new FileExtractor({ timeoutMs: 6_000, memoryMb: 512, ocr: true });
    try {
      // Far more pages than 6 s can read on an idle machine (about 0.8 s a page), so the cap is what ends it.
      const long = await scannedTextPdf(Array.from({ length: 24 }, () => PRICE_PAGES[0]!));
      await assert.rejects(extractor.extract(write('long.pdf', long), 'pdf'), (error: Error) => {
        assert.ok(error instanceof ExtractionError, error.message);
        assert.match(error.message, /took longer than 6 s \(text recognition \(OCR\) was reading page \d+ of 24\).*raise LOCALIQ_EXTRACT_TIMEOUT_MS/);
        return true;
      });
      const next = await extractor.extract(write('next.pdf', await pdfFile([['Read by a fresh thread.']])), 'pdf');
      assert.equal(next.sections[0]!.text, 'Read by a fresh thread.');
    } finally {
      await extractor.close();
    }
  });

  describe('through the pipeline (LOCALIQ_OCR on)', () => {
    let server: Server;
    before(async () => {
      server = await startPipelineServer({ extraction: { timeoutMs: 120_000, memoryMb: 512, ocr: true } });
    });
    after(() => server.stop());

    it('an uploaded scan is indexed with its page numbers, found by search, and its job says OCR read it', async () => {
      const answer = await upload(server, 'scans', 'price-scan.pdf', await scannedTextPdf(PRICE_PAGES));
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      await waitForIdle(server, 120_000);
      const job = (await api(server, 'GET', '/jobs/files-price-scan.pdf?knowledgeBaseId=scans')).body;
      assert.equal(job.status, 'succeeded', JSON.stringify(job));
      assert.equal(job.lastError, null, 'reading a page by OCR is no error');
      assert.match(job.note, /text read by OCR \(text recognition\) from 2 scanned page\(s\) without a text layer: page\(s\) 1, 2/);

      const item = (await api(server, 'GET', '/knowledge-bases/scans/items/files/price-scan.pdf')).body;
      assert.deepEqual([...new Set(item.chunks.map((c: any) => c.page))], [1, 2]);
      const search = await api(server, 'POST', '/knowledge-bases/scans/search', { query: 'waterproof hiking boots', mode: 'keyword' });
      const hit = search.body.results.find((r: any) => r.externalId === 'price-scan.pdf');
      assert.ok(hit, JSON.stringify(search.body));
      assert.equal(hit.passages[0].page, 2);
      assert.match(hit.passages[0].text, /149 euros/);
    });
  });
});
