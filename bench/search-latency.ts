/**
 * Search latency at scale, excluding query embedding: builds indexes of 10,000 and 100,000
 * chunks in-process (bench/lib/scale-index.ts: real texts, random vectors) and times hybrid,
 * keyword and semantic searches with precomputed query vectors (a first round warms up, the
 * second is measured), the loads of the in-memory keyword and vector indexes, and the memory the
 * keyword index holds once loaded. Each mode is timed with typo tolerance on (the default) and
 * off, on the claims as written and misspelt (bench/retrieval/typos.ts), in the same run; the
 * memory of the typo vocabulary is the live memory freed by dropping it at the end.
 * Usage: node --expose-gc --import tsx bench/search-latency.ts [--sizes 10000,100000] [--queries 200]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder } from '../server/embedders/index.ts';
import { type SearchMode } from '../server/retrieval/search.ts';
import { buildScaleIndex, SCALE_KB } from './lib/scale-index.ts';
import { EVAL_DIR, percentile, readJsonl } from './lib/server-child.ts';
import { misspell, seeded } from './retrieval/typos.ts';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '10000,100000' }, queries: { type: 'string', default: '200' } },
});
const queries = readJsonl<{ text: string }>(path.join(EVAL_DIR, 'scifact/queries-train.jsonl'))
  .slice(0, Number(values.queries))
  .map((q) => q.text);
const slips = seeded(42);
const misspelt = queries.map((q) => misspell(q, slips));

if (!globalThis.gc) throw new Error('Run with --expose-gc (npm run bench:search does): the memory figures need a full collection.');

/** Live memory (V8 heap and array buffers) after a full collection, in MB. */
function liveMb(): number {
  globalThis.gc!();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 2 ** 20;
}

const embedder = await createEmbedder({ kind: 'use-lite' });
const queryVectors = await embedder.embed(queries);
const misspeltVectors = await embedder.embed(misspelt);
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
  for (const [set, texts, vectors] of [['', queries, queryVectors], [' misspelt', misspelt, misspeltVectors]] as const) {
    for (const mode of ['keyword', 'semantic', 'hybrid'] as SearchMode[]) {
      // Off and on alternate query by query, so both see the same machine.
      const ms = { off: [] as number[], on: [] as number[] };
      for (let round = 0; round < 2; round++) {
        texts.forEach((query, i) => {
          for (const typos of ['off', 'on'] as const) {
            services.search.updateKnowledgeBaseSettings(SCALE_KB, { typoTolerance: typos === 'on' });
            const started = performance.now();
            // Hybrid search reads the query's corrections first, to embed the corrected query.
            if (mode === 'hybrid') services.search.correctedQuery(SCALE_KB, query);
            services.search.searchWithVector(SCALE_KB, query, vectors[i]!, { mode, topK: 10, sourceTypes: null, passages: 3 });
            if (round === 1) ms[typos].push(performance.now() - started);
          }
        });
      }
      for (const typos of ['off', 'on'] as const) {
        timings[`${mode}${set}, typo tolerance ${typos}`] = {
          p50Ms: Math.round(percentile(ms[typos], 50) * 10) / 10,
          p95Ms: Math.round(percentile(ms[typos], 95) * 10) / 10,
        };
      }
    }
  }
  const vocabulary = services.keywords.vocabularySize();
  const withVocabulary = liveMb();
  // Measuring only: what dropping the vocabulary frees is what it holds.
  (services.keywords as unknown as { vocabulary: unknown }).vocabulary = null;
  const typoVocabularyMb = Math.round((withVocabulary - liveMb()) * 10) / 10;
  report[`${size} chunks`] = {
    buildSeconds: Math.round(buildSeconds),
    keywordIndexLoadMs,
    keywordIndexMb,
    typoVocabulary: { words: vocabulary.words, listMb: Math.round((vocabulary.listBytes / 2 ** 20) * 10) / 10, liveMb: typoVocabularyMb },
    vectorIndexLoadMs,
    ...timings,
    rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
  };
  services.search.updateKnowledgeBaseSettings(SCALE_KB, { typoTolerance: true });
  services.close();
}
console.log(JSON.stringify(report, null, 2));
