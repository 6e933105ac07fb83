/**
 * How fast USE-lite embeds ~120-word passages at each batch size in one thread, and the memory it
 * takes; it chose use-lite's default batch size. Each batch size runs in a fresh process because WASM
 * memory only grows, so a shared process would charge one size's RSS to the next.
 * Run: node --import tsx bench/embedder-speed.ts
 * With --costs: milliseconds of one call by batch size and padded length, the table use-lite.ts's
 * useLiteCallCost is fitted to (it decides where the texts of one embed call are cut into batches).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUseLiteEmbedder, useLiteCallCost } from '../server/embedders/use-lite.ts';
import { truncateToTokens } from '../server/pipeline/text/token-costs.ts';

const BATCH_SIZES = [1, 8, 16, 32, 64];
const PASSAGE_COUNT = 128;
const QUERY_COUNT = 64;

const thisFile = fileURLToPath(import.meta.url);
const passagesFile = path.resolve(path.dirname(thisFile), '../../shared/eval/squad-dev/passages.jsonl');

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;
const passages = fs
  .readFileSync(passagesFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => (JSON.parse(line) as { text: string }).text)
  .filter((text) => wordCount(text) >= 100 && wordCount(text) <= 140)
  .slice(0, PASSAGE_COUNT);
const queries = passages.slice(0, QUERY_COUNT).map((text) => text.split(/\s+/).slice(0, 8).join(' ') + '?');

const megabytes = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const peakRss = () => megabytes(process.resourceUsage().maxRSS * 1024);

/**
 * Texts per wall-clock second and per CPU second of this process. The WASM backend runs on one
 * thread, so the CPU rate is what a dedicated core would give even when other work shares the machine.
 */
async function speed(embed: (texts: string[]) => Promise<unknown>, texts: string[]): Promise<string> {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  await embed(texts);
  const wallSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return `${(texts.length / wallSeconds).toFixed(1)}/s wall, ${(texts.length / cpuSeconds).toFixed(1)}/s per CPU second`;
}

async function measureBatchSize(batchSize: number) {
  const embedder = await createUseLiteEmbedder({ batchSize });
  await embedder.embed(passages.slice(0, batchSize));
  const rate = await speed(embedder.embed, passages);
  console.log(`batch ${String(batchSize).padStart(2)}: passages ${rate}, peak RSS ${peakRss()}`);
  await embedder.close();
}

async function measureLoadAndQueries() {
  const loadStarted = performance.now();
  const embedder = await createUseLiteEmbedder();
  const loadMs = Math.round(performance.now() - loadStarted);
  console.log(`load: ${loadMs} ms, RSS after load ${megabytes(process.memoryUsage().rss)}`);
  const tokens = passages.map(embedder.countTokens);
  const meanTokens = Math.round(tokens.reduce((a, b) => a + b, 0) / tokens.length);
  const clipped = tokens.filter((n) => n > embedder.maxTokens).length;
  console.log(`${passages.length} passages of 100-140 words: mean ${meanTokens} word-pieces, ${clipped} over ${embedder.maxTokens}`);
  await embedder.embed(queries.slice(0, 1));
  const rate = await speed(async (texts) => {
    for (const text of texts) await embedder.embed([text]);
  }, queries);
  console.log(`short queries one at a time: ${rate}, peak RSS ${peakRss()}`);
  await embedder.close();
}

/**
 * Each cell: the best of 5 calls on `size` passages cut to `tokens` word-pieces each. Texts of one
 * length go in one call (nothing to gain from cutting them), so embed() is a single model call here.
 */
async function measureCallCosts() {
  const embedder = await createUseLiteEmbedder();
  await embedder.embed(passages.slice(0, 2));
  for (const tokens of [8, 24, 48, 80, 112, 128]) {
    const texts = passages.map((text) => truncateToTokens(text, tokens, embedder.countTokens));
    const cells: string[] = [];
    for (const size of [1, 2, 3, 5, 8]) {
      const batch = texts.slice(0, size);
      let best = Infinity;
      for (let run = 0; run < 5; run++) {
        const started = performance.now();
        await embedder.embed(batch);
        best = Math.min(best, performance.now() - started);
      }
      cells.push(`${size}: ${best.toFixed(0)} ms (model ${useLiteCallCost(size, tokens).toFixed(0)})`);
    }
    console.log(`${String(tokens).padStart(3)} word-pieces, by batch size: ${cells.join(', ')}`);
  }
  await embedder.close();
}

const onlyBatchSize = process.argv[2];
if (onlyBatchSize === '--costs') {
  await measureCallCosts();
} else if (onlyBatchSize) {
  await measureBatchSize(Number(onlyBatchSize));
} else {
  await measureLoadAndQueries();
  for (const batchSize of BATCH_SIZES) {
    execFileSync(process.execPath, [...process.execArgv, thisFile, String(batchSize)], { stdio: 'inherit' });
  }
}
