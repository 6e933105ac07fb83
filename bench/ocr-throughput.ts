/**
 * Text recognition (OCR) of scanned PDFs: seconds per page, peak memory and word accuracy. The
 * SQuAD passages of ../shared/eval (two a page) are drawn onto scanned pages
 * (test/helpers/scanned-fixtures.ts: a grey JPEG at 200 and 300 dpi, a 1-bit black-and-white scan
 * at 300 dpi), each file read by the real extraction thread with OCR on
 * (server/pipeline/extract/extractor.ts) in a fresh process, and the text that comes out compared
 * word by word with the text drawn: word error rate (substitutions, insertions and deletions over
 * the words drawn) and the share of words drawn that were found.
 * Usage: node --import tsx bench/ocr-throughput.ts [--pages 10]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ExtractedDocument } from '../server/pipeline/extract/document.ts';
import { FileExtractor } from '../server/pipeline/extract/extractor.ts';
import { watchReader } from './lib/reader-usage.ts';
import { type ScanOptions, scannedTextPdf } from '../test/helpers/scanned-fixtures.ts';
import { EVAL_DIR, readJsonl, tempDir } from './lib/server-child.ts';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '10' }, child: { type: 'string' } } });
const PER_PAGE = 2;

const SCANS: Record<string, ScanOptions> = {
  'grey JPEG, 200 dpi': { dpi: 200, colour: 'grey' },
  'grey JPEG, 300 dpi': { dpi: 300, colour: 'grey' },
  '1-bit, 300 dpi': { dpi: 300, colour: 'bilevel' },
};

type Measured = { ms: number; cpuMs: number; bytes: number; pages: number; ocrPages: number; peakRssMb: number; readerPeakMb: number; startRssMb: number; document: ExtractedDocument };

async function child(file: string): Promise<void> {
  const startRssMb = Math.round(process.memoryUsage().rss / 1e6);
  const extractor = new FileExtractor({ timeoutMs: 3_600_000, memoryMb: 512, ocr: true });
  const started = performance.now();
  const cpu = process.cpuUsage();
  const reader = watchReader(extractor);
  const document = await extractor.extract(file, 'pdf');
  const ms = performance.now() - started;
  // Every thread of this process and of the reader process (the recogniser's thread is the
  // reader's): the work itself, whatever else the machine's cores were doing meanwhile.
  const readerUsage = reader.stop();
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000 + readerUsage.cpuMs;
  await extractor.close();
  const measured: Measured = {
    ms,
    cpuMs,
    bytes: fs.statSync(file).size,
    pages: document.pages ?? 0,
    ocrPages: document.ocrPages?.length ?? 0,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) + readerUsage.peakMb,
    readerPeakMb: readerUsage.peakMb,
    startRssMb,
    document,
  };
  fs.writeFileSync(`${file}.json`, JSON.stringify(measured));
}

/** Lower-case words of letters and digits: what search sees, punctuation and layout left out. */
function words(text: string): string[] {
  return text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Word-level edit distance (substitutions, insertions, deletions). */
function editDistance(a: string[], b: string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** The share of `expected` words found in `found`, each found word matching once. */
function wordRecall(expected: string[], found: string[]): number {
  const left = new Map<string, number>();
  for (const word of found) left.set(word, (left.get(word) ?? 0) + 1);
  let hits = 0;
  for (const word of expected) {
    const n = left.get(word) ?? 0;
    if (n > 0) {
      hits++;
      left.set(word, n - 1);
    }
  }
  return hits / expected.length;
}

async function main(): Promise<void> {
  type Passage = { id: string; text: string };
  const pageCount = Number(values.pages);
  const passages = readJsonl<Passage>(path.join(EVAL_DIR, 'squad-dev/passages.jsonl')).slice(0, pageCount * PER_PAGE);
  const pages: string[][] = [];
  for (let i = 0; i < passages.length; i += PER_PAGE) pages.push(passages.slice(i, i + PER_PAGE).map((p) => p.text));
  const dir = tempDir();
  const self = fileURLToPath(import.meta.url);
  const lines: string[] = [];
  for (const [name, options] of Object.entries(SCANS)) {
    const file = path.join(dir, `${name.replace(/\W+/g, '-')}.pdf`);
    fs.writeFileSync(file, await scannedTextPdf(pages, options));
    const run = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', file], { stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`${name}: extraction failed`);
    const m = JSON.parse(fs.readFileSync(`${file}.json`, 'utf8')) as Measured;
    let errors = 0;
    let expectedWords = 0;
    let recallSum = 0;
    pages.forEach((paragraphs, i) => {
      const expected = words(paragraphs.join(' '));
      const found = words(m.document.sections.find((s) => s.page === i + 1)?.text ?? '');
      errors += editDistance(expected, found);
      expectedWords += expected.length;
      recallSum += wordRecall(expected, found);
    });
    lines.push(
      `${name}: ${m.ocrPages}/${m.pages} pages read by OCR, ${(m.bytes / 1e6).toFixed(2)} MB, ${(m.ms / 1000).toFixed(1)} s: ` +
        `${(m.ms / 1000 / m.pages).toFixed(2)} s/page (CPU ${(m.cpuMs / 1000 / m.pages).toFixed(2)} s/page); word error rate ${((100 * errors) / expectedWords).toFixed(1)} % ` +
        `(${expectedWords} words), words found ${((100 * recallSum) / pages.length).toFixed(1)} %; ` +
        `peak RSS ${m.peakRssMb} MB (process at start ${m.startRssMb} MB; the reader process alone ${m.readerPeakMb} MB, under LOCALIQ_EXTRACT_MEMORY_MB)`,
    );
    process.stdout.write(`${lines.at(-1)}\n`);
  }
  process.stdout.write(`\n${lines.join('\n')}\n(each file's time includes starting the extraction reader and the recogniser, as a worker's first file does)\n`);
}

if (values.child) await child(values.child);
else await main();
