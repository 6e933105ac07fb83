/**
 * Peak memory of a real `localiq serve` (its process and every process it starts) while it indexes
 * about 38,000 chunks in four knowledge bases with the embedded USE-lite model, then answers
 * searches and questions on them. RSS is sampled every 200 ms across the whole process tree.
 *
 * Usage: node --import tsx bench/memory-peak.ts [--root DIR] [--items N] [--seeded N] [--queries 100 --asks 50]
 *   --root DIR   run `bin/localiq.js serve` of another checkout (an earlier version with its
 *                node_modules), to compare versions; default: this checkout (built: `npm run build`)
 *   --items N    at most N items per knowledge base (quick runs; reported figures use all)
 *   --seeded N   the shorter run: all but the last N items of each knowledge base are written into
 *                the data folder beforehand (bench/lib/seed-eval-index.ts: the pipeline's chunks,
 *                random vectors); the server then starts on it, loads its indexes, and indexes the
 *                last N items of each with the real model while the searches and questions run
 *   --queries N  searches per knowledge base and mode (keyword, semantic, hybrid)
 *   --asks N     questions to the assistant per knowledge base
 * The four knowledge bases: SciFact, SQuAD and StackFAQ as the retrieval eval ingests them
 * (../shared/eval), and SQuAD's questions as items of their own.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { IngestItem } from '../common/contract/ingest.ts';
import { call, drain, EVAL_DIR, peakRssMb, readJsonl, startServerChild, stopServerChild, tempDir } from './lib/server-child.ts';
import { chunkForSeeding, seedDataFolder } from './lib/seed-eval-index.ts';
import { type TreeRss, TreeRssSampler } from './lib/tree-rss.ts';
import { type Dataset, loadDataset } from './retrieval/datasets.ts';
import { ingestBulk, knowledgeBase, search } from './retrieval/http-client.ts';
import { ingestDataset } from './retrieval/ingest-dataset.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string' },
    items: { type: 'string' },
    queries: { type: 'string', default: '100' },
    asks: { type: 'string', default: '50' },
    seeded: { type: 'string' },
  },
});
const itemLimit = values.items === undefined ? Infinity : Number(values.items);
const log = (line: string) => process.stderr.write(`[memory-peak] ${line}\n`);

/** SQuAD's questions, one item each: many short items beside the three eval sets. */
function squadQuestions(): Dataset {
  const kb = 'eval-squad-questions';
  const questions = readJsonl<{ id: string; question: string }>(path.join(EVAL_DIR, 'squad-dev/questions.jsonl'));
  const items: IngestItem[] = questions.map((q) => ({
    integrationId: 'eval',
    knowledgeBaseId: kb,
    sourceType: 'PAGE',
    externalId: q.id,
    data: { title: 'Question', content: q.question },
  }));
  return { name: 'squad', knowledgeBaseId: kb, items, queries: loadDataset('squad').queries, topK: 10, metrics: [] };
}

const datasets = [loadDataset('scifact'), loadDataset('squad'), loadDataset('stackfaq'), squadQuestions()].map((d) => ({
  ...d,
  items: d.items.slice(0, itemLimit),
}));

const root = values.root === undefined ? undefined : path.resolve(values.root);
const heldOut = values.seeded === undefined ? undefined : Number(values.seeded);
const dataDir = tempDir();
if (heldOut !== undefined) {
  // One item per knowledge base pushed through the server creates the knowledge bases, whatever
  // the version; the pipeline is off, so the push stays queued and is indexed in the measured run.
  const maker = await startServerChild(dataDir, { LOCALIQ_WORKERS: '0' }, root);
  for (const dataset of datasets) await ingestBulk({ url: maker.url, key: maker.key }, [dataset.items.at(-1)!]);
  await stopServerChild(maker);
  const seeds = await chunkForSeeding(datasets.flatMap((d) => d.items.slice(0, -heldOut)));
  log(`seeding ${seeds.length} items, ${seeds.reduce((sum, s) => sum + s.chunks.length, 0)} chunks`);
  await seedDataFolder(root ?? path.resolve(import.meta.dirname, '..'), dataDir, seeds);
}
const server = await startServerChild(dataDir, { LOCALIQ_WORKERS: '2' }, root);
const pid = server.child.pid!;
// The server's warnings (LOCALIQ_LOG_LEVEL=warn) go to the bench's stderr, and a server that dies
// mid-run shows up as refused requests: say how it ended.
server.child.stdout!.on('data', (d: Buffer) => process.stderr.write(d));
server.child.once('exit', (code, signal) => log(`the server exited (code ${code}, signal ${signal})`));
const sampler = new TreeRssSampler(pid);
const target = { url: server.url, key: server.key };
const queries = Number(values.queries);
const asks = Number(values.asks);

/** Every dataset's searches in each mode, then its questions, one request at a time. */
async function askEverything(): Promise<void> {
  for (const dataset of datasets) {
    log(`${dataset.knowledgeBaseId}: ${queries} searches per mode, ${asks} questions`);
    for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
      for (const query of dataset.queries.slice(0, queries)) await search(target, dataset.knowledgeBaseId, { query: query.text, mode, topK: 10 });
    }
    for (const query of dataset.queries.slice(0, asks)) {
      await call(server, 'POST', `/knowledge-bases/${encodeURIComponent(dataset.knowledgeBaseId)}/ask`, { question: query.text });
    }
  }
}

try {
  const ingested = [];
  if (heldOut === undefined) {
    sampler.enter('indexing');
    for (const dataset of datasets) ingested.push({ knowledgeBase: dataset.knowledgeBaseId, ...(await ingestDataset(target, dataset, log)) });
    sampler.enter('querying');
    await askEverything();
  } else {
    // Start-up apart: the server loads the seeded indexes in one go (a server that indexed them
    // itself grew them item by item), and the workers load the model for the queued first items.
    sampler.enter('start-up');
    for (const dataset of datasets) {
      for (const mode of ['keyword', 'semantic'] as const) await search(target, dataset.knowledgeBaseId, { query: dataset.queries[0]!.text, mode, topK: 10 });
      await drain(server, dataset.knowledgeBaseId);
    }
    // The searches and questions run while the pipeline indexes the held-out items, then once more
    // with the pipeline idle.
    sampler.enter('indexing');
    const started = performance.now();
    for (const dataset of datasets) await ingestBulk(target, dataset.items.slice(-heldOut));
    const asking = askEverything();
    for (const dataset of datasets) await drain(server, dataset.knowledgeBaseId);
    const indexedSeconds = Math.round((performance.now() - started) / 100) / 10;
    log(`held-out items indexed in ${indexedSeconds} s`);
    await asking;
    sampler.enter('querying');
    await askEverything();
    for (const dataset of datasets) {
      const kb = (await knowledgeBase(target, dataset.knowledgeBaseId))!;
      ingested.push({ knowledgeBase: dataset.knowledgeBaseId, items: kb.itemCount, chunks: kb.chunkCount, totalSeconds: null, liveItems: heldOut, liveIndexingSeconds: indexedSeconds });
    }
  }
  sampler.stop();

  const summary = (peak: TreeRss | undefined) =>
    peak && {
      totalMb: Math.round(peak.totalMb),
      atSeconds: peak.atSeconds,
      serverMb: Math.round(peak.processes[0]?.rssMb ?? 0),
      otherProcesses: peak.processes.slice(1).map((p) => `${p.name} ${Math.round(p.rssMb)} MB`),
    };
  console.log(
    JSON.stringify(
      {
        when: new Date().toISOString(),
        machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
        checkout: root ?? 'this one',
        mode: heldOut === undefined ? 'every item through the pipeline' : `seeded; the last ${heldOut} items of each knowledge base through the pipeline while queries run`,
        knowledgeBases: ingested.map((i) => ({ id: i.knowledgeBase, items: i.items, chunks: i.chunks, seconds: i.totalSeconds })),
        chunks: ingested.reduce((sum, i) => sum + i.chunks, 0),
        peakTree: summary(sampler.overall()),
        peakTreeStartUp: summary(sampler.peaks.get('start-up')),
        peakTreeIndexing: summary(sampler.peaks.get('indexing')),
        peakTreeQuerying: summary(sampler.peaks.get('querying')),
        serverProcessVmHwmMb: peakRssMb(pid),
      },
      null,
      2,
    ),
  );
} finally {
  sampler.stop();
  await stopServerChild(server);
}
