/**
 * Peak memory of a real `localiq serve` (its process and every process it starts) while it indexes
 * about 38,000 chunks in four knowledge bases with the embedded USE-lite model, then answers
 * searches and questions on them. RSS is sampled every 200 ms across the whole process tree.
 *
 * Usage: node --import tsx bench/memory-peak.ts [--root DIR] [--items N] [--queries 100 --asks 50]
 *   --root DIR   run `bin/localiq.js serve` of another checkout (an earlier version with its
 *                node_modules), to compare versions; default: this checkout (built: `npm run build`)
 *   --items N    at most N items per knowledge base (quick runs; reported figures use all)
 *   --queries N  searches per knowledge base and mode (keyword, semantic, hybrid)
 *   --asks N     questions to the assistant per knowledge base
 * The four knowledge bases: SciFact, SQuAD and StackFAQ as the retrieval eval ingests them
 * (../shared/eval), and SQuAD's questions as items of their own.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { IngestItem } from '../common/contract/ingest.ts';
import { call, EVAL_DIR, peakRssMb, readJsonl, startServerChild, stopServerChild, tempDir } from './lib/server-child.ts';
import { type TreeRss, TreeRssSampler } from './lib/tree-rss.ts';
import { type Dataset, loadDataset } from './retrieval/datasets.ts';
import { search } from './retrieval/http-client.ts';
import { ingestDataset } from './retrieval/ingest-dataset.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string' },
    items: { type: 'string' },
    queries: { type: 'string', default: '100' },
    asks: { type: 'string', default: '50' },
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
const server = await startServerChild(tempDir(), { LOCALIQ_WORKERS: '2' }, root);
const pid = server.child.pid!;
const sampler = new TreeRssSampler(pid);
const target = { url: server.url, key: server.key };

try {
  sampler.enter('indexing');
  const ingested = [];
  for (const dataset of datasets) ingested.push({ knowledgeBase: dataset.knowledgeBaseId, ...(await ingestDataset(target, dataset, log)) });

  sampler.enter('querying');
  const queries = Number(values.queries);
  const asks = Number(values.asks);
  for (const dataset of datasets) {
    log(`${dataset.knowledgeBaseId}: ${queries} searches per mode, ${asks} questions`);
    for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
      for (const query of dataset.queries.slice(0, queries)) await search(target, dataset.knowledgeBaseId, { query: query.text, mode, topK: 10 });
    }
    for (const query of dataset.queries.slice(0, asks)) {
      await call(server, 'POST', `/knowledge-bases/${encodeURIComponent(dataset.knowledgeBaseId)}/ask`, { question: query.text });
    }
  }
  sampler.stop();

  const summary = (peak: TreeRss | undefined) =>
    peak && {
      totalMb: Math.round(peak.totalMb),
      serverMb: Math.round(peak.processes[0]?.rssMb ?? 0),
      otherProcesses: peak.processes.slice(1).map((p) => `${p.name} ${Math.round(p.rssMb)} MB`),
    };
  console.log(
    JSON.stringify(
      {
        when: new Date().toISOString(),
        machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
        checkout: root ?? 'this one',
        knowledgeBases: ingested.map((i) => ({ id: i.knowledgeBase, items: i.items, chunks: i.chunks, seconds: i.totalSeconds })),
        chunks: ingested.reduce((sum, i) => sum + i.chunks, 0),
        peakTree: summary(sampler.overall()),
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
