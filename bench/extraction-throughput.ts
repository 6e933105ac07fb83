/**
 * Extraction throughput (files as knowledge): a PDF of 300 pages and a Word document made from
 * the SQuAD passages of ../shared/eval (three paragraphs a page; a heading per article), each read
 * by the real extraction thread (server/pipeline/extract/extractor.ts) in a fresh process:
 * pages/s and MB/s, and the process's peak RSS. Then the embedder (USE-lite) on the chunks of the
 * same text: extraction must never be the pipeline's bottleneck (goal: ≥ 5× the embedder's chunks/s).
 * The peak RSS is the bench process's and its reader process's (extraction-reader.ts) together.
 * Last, Markdown flooded with emphasis markers (`*a` repeated to 10,000, 20,000 and 60,000
 * characters), parsed in process: its time must grow with the text, not faster.
 * Usage: node --import tsx bench/extraction-throughput.ts [--pages 300]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createEmbedder } from '../server/embedders/index.ts';
import { chunkDocument } from '../server/pipeline/chunk-document.ts';
import { FileExtractor } from '../server/pipeline/extract/extractor.ts';
import type { FileKind } from '../common/contract/files.ts';
import { docxFile, pdfFile } from '../test/helpers/document-fixtures.ts';
import { extractMarkdown } from '../server/pipeline/extract/markdown.ts';
import { watchReader } from './lib/reader-usage.ts';
import { EVAL_DIR, readJsonl, tempDir } from './lib/server-child.ts';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '300' }, child: { type: 'string' }, file: { type: 'string' } } });
const PER_PAGE = 3;

type Measured = { kind: FileKind; ms: number; bytes: number; pages: number; sections: number; chars: number; peakRssMb: number; startRssMb: number };

async function child(kind: FileKind, file: string): Promise<void> {
  const startRssMb = Math.round(process.memoryUsage().rss / 1e6);
  const extractor = new FileExtractor({ timeoutMs: 600_000, memoryMb: 512 });
  const started = performance.now();
  const reader = watchReader(extractor);
  const document = await extractor.extract(file, kind);
  const ms = performance.now() - started;
  const readerPeakMb = reader.stop().peakMb;
  await extractor.close();
  const measured: Measured = {
    kind,
    ms,
    bytes: fs.statSync(file).size,
    pages: document.pages ?? 0,
    sections: document.sections.length,
    chars: document.sections.reduce((n, s) => n + s.text.length, 0),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) + readerPeakMb,
    startRssMb,
  };
  fs.writeFileSync(`${file}.json`, JSON.stringify({ measured, document }));
}

async function main(): Promise<void> {
  type Passage = { id: string; title: string; text: string };
  const pages = Number(values.pages);
  const passages = readJsonl<Passage>(path.join(EVAL_DIR, 'squad-dev/passages.jsonl')).slice(0, pages * PER_PAGE);
  const dir = tempDir();
  const pdf = path.join(dir, 'squad.pdf');
  const docx = path.join(dir, 'squad.docx');
  const pageTexts: string[][] = [];
  for (let i = 0; i < passages.length; i += PER_PAGE) pageTexts.push(passages.slice(i, i + PER_PAGE).map((p) => p.text));
  fs.writeFileSync(pdf, await pdfFile(pageTexts, { title: 'SQuAD passages' }));
  const blocks: Array<{ heading?: 1; text: string }> = [];
  let article = '';
  for (const p of passages) {
    if (p.title !== article) blocks.push({ heading: 1, text: (article = p.title) });
    blocks.push({ text: p.text });
  }
  fs.writeFileSync(docx, await docxFile(blocks, 'SQuAD passages'));

  const self = fileURLToPath(import.meta.url);
  const results: Record<string, Measured> = {};
  let pdfDocument: Parameters<typeof chunkDocument>[0] | null = null;
  for (const [kind, file] of [['pdf', pdf], ['docx', docx]] as const) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', kind, '--file', file], { stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`${kind} extraction failed`);
    const out = JSON.parse(fs.readFileSync(`${file}.json`, 'utf8'));
    results[kind] = out.measured;
    if (kind === 'pdf') pdfDocument = out.document;
  }

  const embedder = await createEmbedder({ kind: 'use-lite' });
  const chunks = chunkDocument(pdfDocument!, 'squad.pdf', { maxTokens: embedder.maxTokens, overlapTokens: 24, countTokens: embedder.countTokens }).chunks;
  const texts = chunks.map((c) => c.embedText);
  await embedder.embed(texts.slice(0, 16));
  const started = performance.now();
  for (let i = 0; i < texts.length; i += 64) await embedder.embed(texts.slice(i, i + 64));
  const embedSeconds = (performance.now() - started) / 1000;
  await embedder.close();
  const embedderChunksPerSecond = chunks.length / embedSeconds;

  const pdfR = results.pdf!;
  const docxR = results.docx!;
  const extractChunksPerSecond = chunks.length / (pdfR.ms / 1000);
  const lines = [
    `PDF:  ${pdfR.pages} pages, ${(pdfR.bytes / 1e6).toFixed(2)} MB in ${(pdfR.ms / 1000).toFixed(2)} s: ${(pdfR.pages / (pdfR.ms / 1000)).toFixed(1)} pages/s, ${(pdfR.bytes / 1e6 / (pdfR.ms / 1000)).toFixed(2)} MB/s; peak RSS ${pdfR.peakRssMb} MB (process at start ${pdfR.startRssMb} MB)`,
    `DOCX: ${docxR.sections} sections, ${(docxR.bytes / 1e6).toFixed(2)} MB (${(docxR.chars / 1e6).toFixed(2)} M characters) in ${(docxR.ms / 1000).toFixed(2)} s: ${(docxR.bytes / 1e6 / (docxR.ms / 1000)).toFixed(2)} MB/s; peak RSS ${docxR.peakRssMb} MB`,
    `Chunks of the PDF's text: ${chunks.length}. Extraction ${extractChunksPerSecond.toFixed(0)} chunks/s, the embedder ${embedderChunksPerSecond.toFixed(1)} chunks/s: ratio ${(extractChunksPerSecond / embedderChunksPerSecond).toFixed(1)}× (goal ≥ 5×)`,
    '(each extraction includes starting its reader and loading the parser, as the first file of a worker does)',
    ...markdownFloods(),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Markdown of `*a` repeated, parsed in process: seconds for each length. */
function markdownFloods(): string[] {
  extractMarkdown('*a'.repeat(500)); // the parser's code loaded and warm
  return [10_000, 20_000, 60_000].map((chars) => {
    const started = performance.now();
    extractMarkdown('*a'.repeat(chars / 2));
    return `Markdown, "*a" repeated to ${chars.toLocaleString('en-US')} characters: ${((performance.now() - started) / 1000).toFixed(2)} s`;
  });
}

if (values.child) await child(values.child as FileKind, values.file!);
else await main();
