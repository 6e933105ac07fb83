/**
 * Typo tolerance on the public eval sets: SQuAD and StackFAQ questions as asked and misspelt
 * (bench/retrieval/typos.ts: a fixed seed, a slip in about half the words of five letters or
 * more), and the same as short keyword queries (a question's content words only), each in keyword
 * and hybrid mode with typo tolerance off (the search before it) and on, in process on the real
 * index (ingested through the real server and pipeline the first time, as bench/retrieval-eval.ts
 * does). Query vectors are embedded in batches first; hybrid with typo tolerance on embeds the
 * query as corrected, as `SearchService.search` does. `--scifact-keyword` adds SciFact's claims
 * as asked in keyword mode, on an index of its items written directly (no embedding: an hour of
 * it here), to check that clean rankings stay.
 *
 * Usage: node --import tsx bench/typo-eval.ts [--datasets squad,stackfaq] [--limit N]
 *          [--data-dir DIR] [--seed 42] [--scifact-keyword] [--reading RARE,WEIGHT,ALTERNATIVES] [--out FILE]
 *   --reading   another TypoReading than search.ts's TYPO_READING (e.g. 3,0.5,1), to compare
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/main.ts';
import { type SearchMode, SearchService, TYPO_READING } from '../server/retrieval/search.ts';
import { SearchSettings } from '../server/retrieval/search-settings.ts';
import { SearchRepo } from '../server/storage/search-repo.ts';
import { SettingsRepo } from '../server/storage/settings-repo.ts';
import { openServices, type Services } from '../server/services.ts';
import { IndexRepo } from '../server/storage/index-repo.ts';
import { VectorStore } from '../server/storage/vector-store.ts';
import { benchEnv, percentile, tempDir } from './lib/server-child.ts';
import { type Dataset, type DatasetName, loadDataset } from './retrieval/datasets.ts';
import { ingestDataset } from './retrieval/ingest-dataset.ts';
import { meanScores } from './retrieval/metrics.ts';
import { misspell, seeded, shortQuery } from './retrieval/typos.ts';

const { values } = parseArgs({
  options: {
    datasets: { type: 'string', default: 'squad,stackfaq' },
    limit: { type: 'string' },
    'data-dir': { type: 'string' },
    seed: { type: 'string', default: '42' },
    'scifact-keyword': { type: 'boolean', default: false },
    reading: { type: 'string' },
    out: { type: 'string', default: path.join(os.tmpdir(), 'localiq-typo-eval.md') },
  },
});
const limit = values.limit === undefined ? Infinity : Number(values.limit);
const seed = Number(values.seed);
const log = (line: string) => process.stderr.write(`[typo-eval] ${line}\n`);
const EMBED_BATCH = 32;
const [rareBelow, weight, alternatives] = values.reading ? values.reading.split(',').map(Number) : [];
const reading = values.reading ? { rareBelow: rareBelow!, weight: weight!, alternatives: alternatives! } : TYPO_READING;

/** The services' search with the reading compared. */
function searchOf(services: Services): SearchService {
  const { db, keywords, embedding, queryEmbedder } = services;
  return new SearchService({ repo: new SearchRepo(db), keywords, embedding, queries: queryEmbedder, settings: new SearchSettings(new SettingsRepo(db)), typoReading: reading });
}

type Variant = { label: string; texts: string[] };
type Run = { variant: string; queries: number; mode: SearchMode; typos: boolean; scores: Record<string, number>; corrected: number; p50Ms: number; p95Ms: number };

/** The four query sets of a dataset: questions and short queries, as written and misspelt. */
function variants(dataset: Dataset): Variant[] {
  const questions = dataset.queries.slice(0, limit).map((q) => q.text);
  const short = questions.map(shortQuery);
  // One generator per set, so each set's slips do not depend on the others.
  const slipQuestions = seeded(seed);
  const slipShort = seeded(seed + 1);
  return [
    { label: 'questions', texts: questions },
    { label: 'questions, misspelt', texts: questions.map((q) => misspell(q, slipQuestions)) },
    { label: 'short queries', texts: short },
    { label: 'short queries, misspelt', texts: short.map((q) => misspell(q, slipShort)) },
  ];
}

class VectorCache {
  private readonly vectors = new Map<string, Float32Array>();
  constructor(private readonly services: Services) {}
  async fill(texts: string[]): Promise<void> {
    const missing = [...new Set(texts.filter((t) => !this.vectors.has(t)))];
    for (let i = 0; i < missing.length; i += EMBED_BATCH) {
      const batch = missing.slice(i, i + EMBED_BATCH);
      (await this.services.queryEmbedder.embed(batch)).forEach((v, j) => this.vectors.set(batch[j]!, v));
    }
  }
  get(text: string): Float32Array {
    return this.vectors.get(text)!;
  }
}

async function evaluate(search: SearchService, dataset: Dataset, variant: Variant, mode: SearchMode, typos: boolean, vectors: VectorCache | null): Promise<Run> {
  search.updateKnowledgeBaseSettings(dataset.knowledgeBaseId, { typoTolerance: typos });
  const kb = dataset.knowledgeBaseId;
  const vectorTexts = variant.texts.map((t) => (mode === 'hybrid' && typos ? (search.correctedQuery(kb, t) ?? t) : t));
  if (mode === 'hybrid') await vectors!.fill(vectorTexts);
  const queries = dataset.queries.slice(0, limit);
  const ms: number[] = [];
  let corrected = 0;
  const runs = variant.texts.map((text, i) => {
    const started = performance.now();
    const outcome = search.searchWithVector(kb, text, mode === 'hybrid' ? vectors!.get(vectorTexts[i]!) : null, {
      mode,
      topK: dataset.topK,
      sourceTypes: null,
      passages: 0,
    });
    ms.push(performance.now() - started);
    if (outcome.correctedQuery !== null) corrected++;
    return { ranked: outcome.hits.map((h) => h.item.externalId), relevant: queries[i]!.relevant };
  });
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    variant: variant.label,
    queries: runs.length,
    mode,
    typos,
    scores: meanScores(dataset.metrics, runs),
    corrected,
    p50Ms: round(percentile(ms, 50)),
    p95Ms: round(percentile(ms, 95)),
  };
}

/** SciFact's items written straight to an index of their own (keyword search reads items only). */
async function scifactKeywordRuns(): Promise<Run[]> {
  const dataset = loadDataset('scifact');
  const dataDir = tempDir();
  const services = await openServices(loadConfig(benchEnv(dataDir)));
  try {
    const index = new IndexRepo(services.db, new VectorStore(services.db, 'none', 4));
    services.db.transaction(() => {
      dataset.items.forEach((item, i) => {
        const data = item.data as { title: string; content: string };
        index.writeItem(
          {
            knowledgeBaseId: dataset.knowledgeBaseId, integrationId: 'eval', externalId: item.externalId, sourceType: item.sourceType,
            title: data.title, content: data.content, text: data.content, url: null, sourceData: null,
            contentHash: `h-${i}`, seq: i + 1, embedderId: 'none', chunks: [],
          },
          Date.now(),
        );
      });
    })();
    await services.keywords.load();
    const clean = { label: 'claims (items written directly)', texts: dataset.queries.slice(0, limit).map((q) => q.text) };
    const runs: Run[] = [];
    for (const typos of [false, true]) runs.push(await evaluate(searchOf(services), dataset, clean, 'keyword', typos, null));
    return runs;
  } finally {
    services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function table(name: string, runs: Run[]): string {
  const metrics = Object.keys(runs[0]!.scores);
  const lines = [
    `### ${name}`,
    '',
    `| queries | mode | typo tolerance | ${metrics.join(' | ')} | corrected | p50 / p95 ms |`,
    `|---|---|---|${metrics.map(() => '---|').join('')}---|---|`,
  ];
  for (const r of runs) {
    lines.push(`| ${r.variant} | ${r.mode} | ${r.typos ? 'on' : 'off'} | ${metrics.map((m) => r.scores[m]!.toFixed(3)).join(' | ')} | ${r.corrected} | ${r.p50Ms} / ${r.p95Ms} |`);
  }
  return lines.join('\n');
}

const report: Record<string, Run[]> = {};
const names = values.datasets.split(',').filter(Boolean) as DatasetName[];
if (names.length) {
  const ownDataDir = values['data-dir'] === undefined;
  const dataDir = ownDataDir ? fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-typo-eval-')) : path.resolve(values['data-dir']!);
  const server = await startServer(loadConfig({ ...process.env, ...benchEnv(dataDir) }, { workers: 2 }));
  try {
    const target = { url: server.url, key: server.services.keys.create({ name: 'typo eval', scopes: ['iq:import', 'iq:read'] }).value };
    const datasets = names.map((name) => loadDataset(name));
    for (const dataset of datasets) await ingestDataset(target, dataset, log);
    // The server is already loading it in the background (`load` would return at once), and the
    // keyword runs never yield to let that load go on: until it ends, FTS5 would answer.
    await server.services.keywords.ready();
    const vectors = new VectorCache(server.services);
    const search = searchOf(server.services);
    for (const dataset of datasets) {
      const runs: Run[] = [];
      for (const variant of variants(dataset)) {
        for (const mode of ['keyword', 'hybrid'] as const) {
          for (const typos of [false, true]) {
            log(`${dataset.name}: ${variant.label}, ${mode}, typo tolerance ${typos ? 'on' : 'off'}`);
            runs.push(await evaluate(search, dataset, variant, mode, typos, vectors));
          }
        }
      }
      // Back to the default.
      server.services.search.updateKnowledgeBaseSettings(dataset.knowledgeBaseId, { typoTolerance: true });
      report[dataset.name] = runs;
    }
  } finally {
    await server.stop();
    if (ownDataDir) log(`data folder kept for reruns: ${dataDir} (--data-dir)`);
  }
}
if (values['scifact-keyword']) {
  log('scifact: claims in keyword mode');
  report.scifact = await scifactKeywordRuns();
}

const markdown = Object.entries(report)
  .map(([name, runs]) => table(`${name} (${runs[0]!.queries} queries, seed ${seed})`, runs))
  .join('\n\n');
fs.writeFileSync(values.out, markdown + '\n');
log(`markdown tables written to ${values.out}`);
console.log(JSON.stringify({ when: new Date().toISOString(), seed, limit: values.limit ?? null, reading, report }, null, 2));
