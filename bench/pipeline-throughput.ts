/**
 * Pipeline throughput benchmark (loopback only, bounded):
 *  1. end-to-end chunks/s (push over HTTP → indexed) against the raw embedder on the same chunks;
 *  2. 1 worker against 2 workers;
 *  3. POST /ingest p99 while the pipeline is saturated against idle;
 *  4. an unchanged re-sync of 10,000 items (items/s until every job is final);
 *  5. peak RSS of the server process.
 * Usage: node --import tsx bench/pipeline-throughput.ts [--passages 600]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { chunkItem } from '../server/pipeline/chunk.ts';
import { createEmbedder } from '../server/embedders/index.ts';
import { normalizeItem } from '../server/pipeline/normalize.ts';
import {
  call,
  drain,
  EVAL_DIR,
  peakRssMb,
  readJsonl,
  startServerChild,
  stopServerChild,
  tempDir,
  type ServerChild,
} from './lib/server-child.ts';

const { values } = parseArgs({ options: { passages: { type: 'string', default: '600' } } });
type Passage = { id: string; title: string; text: string };
const passages = readJsonl<Passage>(path.join(EVAL_DIR, 'squad-dev/passages.jsonl')).slice(0, Number(values.passages));
const asItem = (p: Passage, kb: string) => ({
  integrationId: 'bench',
  knowledgeBaseId: kb,
  sourceType: 'ARTICLE',
  externalId: p.id,
  data: { title: p.title, content: p.text },
});

async function pushAll(server: ServerChild, items: object[]): Promise<void> {
  for (let i = 0; i < items.length; i += 1000) await call(server, 'POST', '/ingest/bulk', { items: items.slice(i, i + 1000) });
}

async function rawEmbedderChunksPerSecond(): Promise<{ chunks: number; perSecond: number }> {
  const embedder = await createEmbedder({ kind: 'use-lite' });
  const texts = passages.flatMap((p) =>
    chunkItem(normalizeItem('ARTICLE', { title: p.title, content: p.text }), {
      maxTokens: embedder.maxTokens,
      overlapTokens: 24,
      countTokens: embedder.countTokens,
    }).map((c) => c.embedText),
  );
  const unique = [...new Set(texts)];
  const started = performance.now();
  await embedder.embed(unique);
  const seconds = (performance.now() - started) / 1000;
  await embedder.close();
  return { chunks: unique.length, perSecond: unique.length / seconds };
}

async function endToEnd(workers: number): Promise<{ chunks: number; perSecond: number; peakRssMb: number }> {
  const server = await startServerChild(tempDir(), { LOCALIQ_WORKERS: String(workers) });
  // Warm-up: the workers load the model before the clock starts.
  await pushAll(server, [asItem({ id: 'warm', title: 'Warm up', text: 'Loading the model.' }, 'kb-warm')]);
  await drain(server, 'kb-warm');
  const started = performance.now();
  await pushAll(server, passages.map((p) => asItem(p, 'kb-e2e')));
  await drain(server, 'kb-e2e');
  const seconds = (performance.now() - started) / 1000;
  const { data } = await call(server, 'GET', '/knowledge-bases');
  const chunks = data.find((k: { id: string }) => k.id === 'kb-e2e').chunkCount as number;
  const rss = peakRssMb(server.child.pid!);
  await stopServerChild(server);
  return { chunks, perSecond: chunks / seconds, peakRssMb: rss };
}

async function ingestP99(server: ServerChild, prefix: string): Promise<number> {
  let n = 0;
  const result = await autocannon({
    url: `${server.url}/ingest`,
    method: 'POST',
    connections: 4,
    duration: 8,
    overallRate: 200,
    headers: { 'content-type': 'application/json', 'x-api-key': server.key },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(asItem({ id: `${prefix}-${n++}`, title: 'Probe', text: 'A probe item.' }, 'kb-probe')) }) }],
  });
  if (result.errors || result.non2xx) throw new Error(`ingest probe had ${result.errors} errors, ${result.non2xx} non-2xx`);
  return result.latency.p99;
}

async function ingestUnderLoad(): Promise<{ idleP99Ms: number; saturatedP99Ms: number }> {
  const server = await startServerChild(tempDir(), { LOCALIQ_WORKERS: '2' });
  const idleP99Ms = await ingestP99(server, 'idle');
  await pushAll(server, passages.map((p) => asItem(p, 'kb-load')));
  const saturatedP99Ms = await ingestP99(server, 'busy');
  const { data } = await call(server, 'GET', '/knowledge-bases');
  const stillBusy = data.find((k: { id: string }) => k.id === 'kb-load').pendingJobs > 0;
  await stopServerChild(server);
  if (!stillBusy) throw new Error('the pipeline drained during the saturated probe; use more --passages');
  return { idleP99Ms, saturatedP99Ms };
}

/** 10,000 catalogue items (100 distinct texts, so the first sync is quick), then the same again. */
async function unchangedResync(): Promise<{ items: number; firstSyncSeconds: number; itemsPerSecond: number }> {
  const server = await startServerChild(tempDir(), { LOCALIQ_WORKERS: '2' });
  const items = Array.from({ length: 10_000 }, (_, i) => ({
    integrationId: 'shop',
    knowledgeBaseId: 'kb-sync',
    sourceType: 'PRODUCT',
    externalId: `sku-${i}`,
    data: { title: `Product family ${i % 100}`, content: `Catalogue entry of product family ${i % 100}.`, hash: `v1-${i}` },
  }));
  let started = performance.now();
  await pushAll(server, items);
  await drain(server, 'kb-sync');
  const firstSyncSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  await pushAll(server, items);
  await drain(server, 'kb-sync');
  const seconds = (performance.now() - started) / 1000;
  const skipped = await call(server, 'GET', '/jobs?status=queued&knowledgeBaseId=kb-sync&limit=1');
  await stopServerChild(server);
  if (skipped.data.length) throw new Error('jobs left queued after the re-sync');
  return { items: items.length, firstSyncSeconds: round(firstSyncSeconds), itemsPerSecond: Math.round(items.length / seconds) };
}

const round = (x: number) => Math.round(x * 10) / 10;

const raw = await rawEmbedderChunksPerSecond();
const one = await endToEnd(1);
const two = await endToEnd(2);
const load = await ingestUnderLoad();
const resync = await unchangedResync();
console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
      passages: passages.length,
      rawEmbedder: { chunks: raw.chunks, chunksPerSecond: round(raw.perSecond) },
      endToEnd1Worker: { chunks: one.chunks, chunksPerSecond: round(one.perSecond), peakRssMb: one.peakRssMb },
      endToEnd2Workers: { chunks: two.chunks, chunksPerSecond: round(two.perSecond), peakRssMb: two.peakRssMb },
      ratioEndToEndVsRaw: round((one.perSecond / raw.perSecond) * 100) / 100,
      ratio2WorkersVs1: round((two.perSecond / one.perSecond) * 100) / 100,
      ingestP99: { ...load, ratio: round((load.saturatedP99Ms / Math.max(1, load.idleP99Ms)) * 100) / 100 },
      unchangedResync: resync,
    },
    null,
    2,
  ),
);
