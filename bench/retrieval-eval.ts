/**
 * Retrieval quality on the public eval sets (../shared/eval): starts the real server in-process
 * on loopback with its pipeline, ingests each dataset through POST /ingest/bulk into its own
 * knowledge base, waits for the queue to drain, then runs every query through
 * POST /knowledge-bases/{id}/search in each mode and scores the rankings.
 *
 * Usage: node --import tsx bench/retrieval-eval.ts [--datasets scifact,squad,stackfaq]
 *          [--limit N] [--keep] [--data-dir DIR] [--sweep] [--out FILE]
 *   --limit N      first N queries per dataset (quick runs; reported figures use all queries)
 *   --keep         keep the temporary data folder (its path is printed) to reuse the index
 *   --data-dir DIR use this data folder; datasets it already holds fully indexed are not re-ingested
 *   --sweep        instead of the HTTP runs, compare hybrid fusion settings in-process (sweep.ts)
 *   --out FILE     where the markdown tables go (default: a file in the OS temp folder)
 * LOCALIQ_EMBEDDER and the other LOCALIQ_* pipeline settings are read from the environment.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/main.ts';
import { benchEnv } from './lib/server-child.ts';
import { DATASET_NAMES, type DatasetName, loadDataset } from './retrieval/datasets.ts';
import { evaluateOverHttp } from './retrieval/http-eval.ts';
import { ingestDataset, type IngestStats } from './retrieval/ingest-dataset.ts';
import { type DatasetReport, type EvalReport, markdownReport } from './retrieval/report.ts';
import { sweepDataset } from './retrieval/sweep.ts';

const { values } = parseArgs({
  options: {
    datasets: { type: 'string', default: DATASET_NAMES.join(',') },
    limit: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    sweep: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(os.tmpdir(), 'localiq-retrieval-eval.md') },
  },
});

const names = values.datasets.split(',').map((n) => n.trim()) as DatasetName[];
for (const name of names) {
  if (!DATASET_NAMES.includes(name)) throw new Error(`unknown dataset "${name}"; known: ${DATASET_NAMES.join(', ')}`);
}
const limit = values.limit === undefined ? Infinity : Number(values.limit);
const log = (line: string) => process.stderr.write(`[retrieval-eval] ${line}\n`);

const ownDataDir = values['data-dir'] === undefined;
const dataDir = ownDataDir ? fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-eval-')) : path.resolve(values['data-dir']!);
// LOCALIQ_* settings from the environment apply (LOCALIQ_EMBEDDER, LOCALIQ_CHUNK_OVERLAP_TOKENS… to
// evaluate another model or chunking); benchEnv fixes loopback, the file secret store, and a rate
// limit out of the way of thousands of back-to-back queries.
const config = loadConfig({ ...process.env, ...benchEnv(dataDir) }, { workers: 2 });
const server = await startServer(config);
const target = { url: server.url, key: server.services.keys.create({ name: 'retrieval eval', scopes: ['iq:import', 'iq:read'] }).value };

try {
  const report: EvalReport = {
    when: new Date().toISOString(),
    machine: `${os.availableParallelism()} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    embedder: null,
    datasets: {},
  };
  // Everything is ingested before anything is searched: a sweep blocks the event loop for
  // minutes, and an idle keep-alive connection to the server would not survive that.
  const datasets = names.map((name) => loadDataset(name));
  const ingested: IngestStats[] = [];
  for (const dataset of datasets) ingested.push(await ingestDataset(target, dataset, log));
  for (const [i, dataset] of datasets.entries()) {
    const queries = dataset.queries.slice(0, limit);
    const entry: DatasetReport = { queries: queries.length, ingest: ingested[i]! };
    if (values.sweep) {
      log(`${dataset.name}: sweeping fusion settings over ${queries.length} queries`);
      entry.sweep = await sweepDataset(server.services, dataset, queries);
    } else {
      entry.modes = [];
      for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
        log(`${dataset.name}: ${mode} search, ${queries.length} queries`);
        entry.modes.push(await evaluateOverHttp(target, dataset, queries, mode));
      }
    }
    report.datasets[dataset.name] = entry;
  }
  report.embedder = server.services.embedding.modelId();
  fs.writeFileSync(values.out, markdownReport(report));
  log(`markdown tables written to ${values.out}`);
  console.log(JSON.stringify(report, null, 2));
} finally {
  await server.stop();
  if (ownDataDir && !values.keep) fs.rmSync(dataDir, { recursive: true, force: true });
  else log(`data folder kept: ${dataDir} (reuse with --data-dir)`);
}
