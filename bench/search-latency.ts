/**
 * Search latency at scale, excluding query embedding: builds indexes of 10,000 and 100,000
 * chunks in-process and times hybrid, keyword and semantic searches with precomputed query vectors.
 * Chunk texts are real (SciFact abstract sentences, cycled); chunk vectors are random unit vectors
 * because embedding 100,000 chunks with the default model would take over an hour here. Exact
 * KNN and BM25 cost the same whatever the vectors mean, so the timings hold; the rankings do not.
 * Usage: node --import tsx bench/search-latency.ts [--sizes 10000,100000] [--queries 200]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { createEmbedder } from '../server/pipeline/embedders/index.ts';
import { type SearchMode } from '../server/retrieval/search.ts';
import { openServices } from '../server/services.ts';
import { IndexRepo } from '../server/storage/index-repo.ts';
import { VectorStore } from '../server/storage/vector-store.ts';
import { benchEnv, EVAL_DIR, percentile, readJsonl, tempDir } from './lib/server-child.ts';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '10000,100000' }, queries: { type: 'string', default: '200' } },
});
const CHUNKS_PER_ITEM = 4;
type Doc = { _id: string; title: string; text: string };
const docs = readJsonl<Doc>(path.join(EVAL_DIR, 'scifact/corpus.jsonl'));
const queries = readJsonl<{ text: string }>(path.join(EVAL_DIR, 'scifact/queries-train.jsonl'))
  .slice(0, Number(values.queries))
  .map((q) => q.text);

function randomUnit(dimension: number): Float32Array {
  const v = Float32Array.from({ length: dimension }, () => Math.random() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

async function buildIndex(chunkCount: number) {
  const services = await openServices(loadConfig(benchEnv(tempDir())));
  services.embedding.activate('use-lite', 512);
  const index = new IndexRepo(services.db, new VectorStore(services.db, 'use-lite', 512));
  const items = chunkCount / CHUNKS_PER_ITEM;
  const started = performance.now();
  for (let start = 0; start < items; start += 1000) {
    services.db.transaction(() => {
      for (let i = start; i < Math.min(items, start + 1000); i++) {
        const doc = docs[i % docs.length]!;
        const sentences = doc.text.split(/(?<=\.)\s+/);
        const chunks = Array.from({ length: CHUNKS_PER_ITEM }, (_, c) => ({
          position: c,
          text: sentences.slice(c * 2, c * 2 + 2).join(' ') || doc.title,
          tokenCount: 60,
          embedHash: `${i}-${c}`,
          vector: randomUnit(512),
        }));
        index.writeItem(
          {
            knowledgeBaseId: 'kb-scale',
            integrationId: 'bench',
            externalId: `doc-${i}`,
            sourceType: 'ARTICLE',
            title: doc.title,
            content: doc.text,
            text: doc.text,
            url: null,
            sourceData: null,
            contentHash: `h-${i}`,
            seq: i + 1,
            embedderId: 'use-lite',
            chunks,
          },
          Date.now(),
        );
      }
    })();
  }
  return { services, buildSeconds: (performance.now() - started) / 1000 };
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
  const { services, buildSeconds } = await buildIndex(size);
  const timings: Record<string, { p50Ms: number; p95Ms: number }> = {};
  for (const mode of ['keyword', 'semantic', 'hybrid'] as SearchMode[]) {
    const ms: number[] = [];
    for (let round = 0; round < 2; round++) {
      queries.forEach((query, i) => {
        const started = performance.now();
        services.search.searchWithVector('kb-scale', query, queryVectors[i]!, { mode, topK: 10, sourceTypes: null, passages: 3 });
        if (round === 1) ms.push(performance.now() - started);
      });
    }
    timings[mode] = { p50Ms: Math.round(percentile(ms, 50) * 10) / 10, p95Ms: Math.round(percentile(ms, 95) * 10) / 10 };
  }
  report[`${size} chunks`] = { buildSeconds: Math.round(buildSeconds), ...timings };
  services.close();
}
console.log(JSON.stringify(report, null, 2));
