/**
 * Search latency at scale, excluding query embedding: builds indexes of 10,000 and 100,000
 * chunks in-process (bench/lib/scale-index.ts: real texts, random vectors) and times hybrid,
 * keyword and semantic searches with precomputed query vectors (a first round warms up, the
 * second is measured), the loads of the in-memory keyword and vector indexes, and the memory the
 * keyword index holds once loaded.
 * Usage: node --expose-gc --import tsx bench/search-latency.ts [--sizes 10000,100000] [--queries 200]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder } from '../server/embedders/index.ts';
import { type SearchMode } from '../server/retrieval/search.ts';
import { buildScaleIndex, SCALE_KB } from './lib/scale-index.ts';
import { EVAL_DIR, percentile, readJsonl } from './lib/server-child.ts';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '10000,100000' }, queries: { type: 'string', default: '200' } },
});
const queries = readJsonl<{ text: string }>(path.join(EVAL_DIR, 'scifact/queries-train.jsonl'))
  .slice(0, Number(values.queries))
  .map((q) => q.text);

if (!globalThis.gc) throw new Error('Run with --expose-gc (npm run bench:search does): the memory figures need a full collection.');

/** Live memory (V8 heap and array buffers) after a full collection, in MB. */
function liveMb(): number {
  globalThis.gc!();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 2 ** 20;
}

const embedder = await createEmbedder({ kind: 'use-lite' });
const queryVectors = await embedder.embed(queries);
await embedder.close();

const report: Record<string, unknown> = {
  when: new Date().toISOString(),
  machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  queries: queries.length,
};
for (const size of values.sizes!.split(',').map(Number)) {
  const { services, buildSeconds } = await buildScaleIndex(size);
  // The in-memory indexes load in the background after start-up (until then keyword search asks
  // FTS5 and the first semantic search finishes the vectors' load); timed apart.
  const liveBefore = liveMb();
  let loadStarted = performance.now();
  await services.keywords.load();
  const keywordIndexLoadMs = Math.round(performance.now() - loadStarted);
  // The postings and the tokenizer's cache of pieces.
  const keywordIndexMb = Math.round(liveMb() - liveBefore);
  loadStarted = performance.now();
  services.embedding.index()!.size();
  const vectorIndexLoadMs = Math.round(performance.now() - loadStarted);
  const timings: Record<string, { p50Ms: number; p95Ms: number }> = {};
  for (const mode of ['keyword', 'semantic', 'hybrid'] as SearchMode[]) {
    const ms: number[] = [];
    for (let round = 0; round < 2; round++) {
      queries.forEach((query, i) => {
        const started = performance.now();
        services.search.searchWithVector(SCALE_KB, query, queryVectors[i]!, { mode, topK: 10, sourceTypes: null, passages: 3 });
        if (round === 1) ms.push(performance.now() - started);
      });
    }
    timings[mode] = { p50Ms: Math.round(percentile(ms, 50) * 10) / 10, p95Ms: Math.round(percentile(ms, 95) * 10) / 10 };
  }
  report[`${size} chunks`] = {
    buildSeconds: Math.round(buildSeconds),
    keywordIndexLoadMs,
    keywordIndexMb,
    vectorIndexLoadMs,
    ...timings,
    rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
  };
  services.close();
}
console.log(JSON.stringify(report, null, 2));
