/**
 * Retrieval in a knowledge base written in German or French (bench/retrieval/language-set.ts):
 * the real server in-process with its pipeline and the default embedder (USE-lite, English),
 * each set pushed through POST /ingest/bulk into its own knowledge base. Every query is run in
 * keyword, semantic and hybrid mode while the knowledge base is read as English (FTS5's Porter
 * stemmer, the default), then again once its language is set and it is re-indexed, with hybrid at
 * several dense weights (SearchService's otherLanguagesDenseWeight): what the fusion weight for
 * languages the embedder does not cover is chosen from (docs/retrieval.md, "Languages").
 *
 * `--scale` adds the cost of the language's path at a larger size: SciFact's 5,183 abstracts
 * written straight to an index (no embedding), re-indexed from English into German (their text
 * is English, the work per word the same) while timed, then its claims searched in keyword mode
 * read as English (in-memory postings) and as German (FTS5 on the German tables, then the
 * German in-memory postings once loaded).
 *
 * Usage: node --import tsx bench/language-eval.ts [--scale] [--out FILE]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/main.ts';
import { DEFAULT_HYBRID, type SearchMode, SearchService } from '../server/retrieval/search.ts';
import { SearchSettings } from '../server/retrieval/search-settings.ts';
import { KnowledgeBaseLanguages } from '../server/storage/knowledge-base-languages.ts';
import { SearchRepo } from '../server/storage/search-repo.ts';
import { SettingsRepo } from '../server/storage/settings-repo.ts';
import type { Services } from '../server/services.ts';
import { openServices } from '../server/services.ts';
import { IndexRepo } from '../server/storage/index-repo.ts';
import { VectorStore } from '../server/storage/vector-store.ts';
import { benchEnv, percentile, tempDir } from './lib/server-child.ts';
import { loadDataset } from './retrieval/datasets.ts';
import { FRENCH_SET, GERMAN_SET, type LanguageSet } from './retrieval/language-set.ts';
import { meanScores, type Metric, recallAt } from './retrieval/metrics.ts';
import { waitUntilIndexed } from './lib/wait-indexed.ts';

const { values } = parseArgs({
  options: { scale: { type: 'boolean', default: false }, out: { type: 'string', default: path.join(os.tmpdir(), 'localiq-language-eval.md') } },
});
const log = (line: string) => process.stderr.write(`[language-eval] ${line}\n`);
/** Mean reciprocal rank within the top 5. */
const MRR: Metric = { name: 'MRR@5', depth: 5, score: (ranked, relevant) => { const at = ranked.slice(0, 5).findIndex((id) => relevant.has(id)); return at < 0 ? 0 : 1 / (at + 1); } };
const METRICS = [recallAt(1), recallAt(3), recallAt(5), MRR];
const DENSE_WEIGHTS = [0, 0.1, 0.2, 0.3, 0.5];
const TOP_K = 5;

type Row = { reading: string; mode: string; scores: Record<string, number> };

/** A search service over the server's indexes whose hybrid mode uses `denseWeight` for non-English knowledge bases. */
function searchWith(services: Services, denseWeight: number): SearchService {
  const { db, keywords, embedding, queryEmbedder } = services;
  const settings = new SearchSettings(new SettingsRepo(db), { store: new KnowledgeBaseLanguages(db), reindexer: services.keywordReindexer });
  return new SearchService({ repo: new SearchRepo(db), keywords, embedding, queries: queryEmbedder, hybrid: { ...DEFAULT_HYBRID, otherLanguagesDenseWeight: denseWeight }, settings });
}

async function run(search: SearchService, kb: string, set: LanguageSet, mode: SearchMode): Promise<Record<string, number>> {
  const runs = [];
  for (const { query, relevant } of set.queries) {
    const outcome = await search.search(kb, query, { mode, topK: TOP_K, sourceTypes: null, passages: 0 });
    runs.push({ ranked: outcome.hits.map((h) => h.item.externalId), relevant: new Set([relevant]) });
  }
  return meanScores(METRICS, runs);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-language-eval-'));
const server = await startServer(loadConfig({ ...process.env, ...benchEnv(dataDir) }, { workers: 2 }));
const report: string[] = [`Language eval, ${new Date().toISOString()}, ${os.availableParallelism()} cores, node ${process.version}`, ''];
try {
  const key = server.services.keys.create({ name: 'language eval', scopes: ['iq:import', 'iq:read'] }).value;
  for (const set of [GERMAN_SET, FRENCH_SET]) {
    const kb = `shop-${set.language}`;
    const items = set.items.map((item) => ({
      integrationId: 'eval',
      knowledgeBaseId: kb,
      sourceType: 'PRODUCT',
      externalId: item.id,
      data: { title: item.title, content: item.content },
    }));
    const res = await fetch(`${server.url}/ingest/bulk`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
  }
  await waitUntilIndexed(server);
  for (const set of [GERMAN_SET, FRENCH_SET]) {
    const kb = `shop-${set.language}`;
    const rows: Row[] = [];
    log(`${kb}: read as English`);
    for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
      rows.push({ reading: 'English (Porter)', mode: mode === 'hybrid' ? `hybrid ${DEFAULT_HYBRID.denseWeight}` : mode, scores: await run(server.services.search, kb, set, mode) });
    }
    server.services.search.updateKnowledgeBaseSettings(kb, { language: set.language });
    await server.services.keywordReindexer.idle();
    // Searched in the language's in-memory postings, as a running server does once they loaded.
    await server.services.keywordIndexes.of(set.language).ready();
    log(`${kb}: read as ${set.language}`);
    rows.push({ reading: set.language, mode: 'keyword', scores: await run(server.services.search, kb, set, 'keyword') });
    for (const weight of DENSE_WEIGHTS) {
      rows.push({ reading: set.language, mode: `hybrid ${weight}`, scores: await run(searchWith(server.services, weight), kb, set, 'hybrid') });
    }
    const names = METRICS.map((m) => m.name);
    report.push(`### ${set.language === 'de' ? 'German' : 'French'}: ${set.items.length} items, ${set.queries.length} queries`, '');
    report.push(`| keyword index | mode | ${names.join(' | ')} |`, `|---|---|${names.map(() => '---|').join('')}`);
    for (const row of rows) report.push(`| ${row.reading} | ${row.mode} | ${names.map((n) => row.scores[n]!.toFixed(3)).join(' | ')} |`);
    report.push('');
  }
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
if (values.scale) report.push(...(await scaleRun()));
fs.writeFileSync(values.out, report.join('\n'));
process.stdout.write(report.join('\n') + '\n');
log(`written to ${values.out}`);

/** The re-index's pace and FTS5's keyword latency on the German tables, at SciFact's size. */
async function scaleRun(): Promise<string[]> {
  const dataset = loadDataset('scifact');
  const dir = tempDir();
  const services = await openServices(loadConfig(benchEnv(dir)));
  try {
    const kb = dataset.knowledgeBaseId;
    const index = new IndexRepo(services.db, new VectorStore(services.db, 'none', 4));
    services.db.transaction(() => {
      dataset.items.forEach((item, i) => {
        const data = item.data as { title: string; content: string };
        index.writeItem(
          {
            knowledgeBaseId: kb, integrationId: 'eval', externalId: item.externalId, sourceType: item.sourceType,
            title: data.title, content: data.content, text: data.content, url: null, sourceData: null,
            contentHash: `h-${i}`, seq: i + 1, embedderId: 'none', chunks: [],
          },
          Date.now(),
        );
      });
    })();
    await services.keywords.load();
    const claims = dataset.queries.map((q) => q.text);
    const timed = () => {
      const ms: number[] = [];
      for (const claim of claims) {
        const started = performance.now();
        services.search.searchWithVector(kb, claim, null, { mode: 'keyword', topK: 10, sourceTypes: null, passages: 0 });
        ms.push(performance.now() - started);
      }
      return `${percentile(ms, 50).toFixed(2)} / ${percentile(ms, 95).toFixed(2)}`;
    };
    const english = timed();
    log(`scifact: re-indexing ${dataset.items.length} items into German`);
    const started = performance.now();
    services.search.updateKnowledgeBaseSettings(kb, { language: 'de' });
    await services.keywordReindexer.idle();
    const seconds = (performance.now() - started) / 1000;
    // The German postings load in the background; the searches run meanwhile go to FTS5.
    const germanFts5 = timed();
    await services.keywordIndexes.of('de').ready();
    const german = timed();
    return [
      `### Scale: SciFact, ${dataset.items.length} abstracts written directly, ${claims.length} claims`,
      '',
      `Re-index into German: ${seconds.toFixed(1)} s (${Math.round(dataset.items.length / seconds)} items/s).`,
      '',
      '| keyword index | keyword search p50 / p95 ms |',
      '|---|---|',
      `| English (in-memory postings) | ${english} |`,
      `| German (FTS5 on the German tables, before its postings load) | ${germanFts5} |`,
      `| German (in-memory postings) | ${german} |`,
      '',
    ];
  } finally {
    services.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
