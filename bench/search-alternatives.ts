/**
 * Why search costs what it costs at 100,000 chunks: times the parts of a search and the
 * alternatives considered for each, on the index bench/search-latency.ts uses
 * (bench/lib/scale-index.ts: SciFact texts, random unit vectors). Query embedding excluded.
 * Then the agreement of the in-memory vector search with sqlite-vec's exact search on real
 * embeddings (USE-lite), where random vectors would say nothing: SciFact's 29,853 chunks in an index
 * `npm run bench:retrieval -- --keep` left (--eval-index DIR), or else N SciFact sentences
 * embedded here (--real N; small, so a large share of them is rescored exactly).
 * Usage: node --import tsx bench/search-alternatives.ts [--chunks 100000] [--queries 100]
 *          [--eval-index DIR | --real 3000]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder } from '../server/embedders/index.ts';
import { ftsQuery, searchWords } from '../server/language/query-words.ts';
import { loadConfig } from '../server/config.ts';
import { openServices, type Services } from '../server/services.ts';
import { IndexRepo } from '../server/storage/index-repo.ts';
import { scopedQuery } from '../server/storage/keyword-scope.ts';
import { SearchRepo } from '../server/storage/search-repo.ts';
import { buildScaleIndex, randomUnit, SCALE_KB as KB } from './lib/scale-index.ts';
import { benchEnv, EVAL_DIR, percentile, readJsonl } from './lib/server-child.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '100' },
    real: { type: 'string', default: '3000' },
    'eval-index': { type: 'string' },
  },
});
const claims = readJsonl<{ text: string }>(path.join(EVAL_DIR, 'scifact/queries-train.jsonl')).slice(0, Number(values.queries));
const words = claims.map((q) => searchWords(q.text)).filter((w) => w.length > 0);
const queries = words.map((w) => ftsQuery(w)!);

const { services, store } = await buildScaleIndex(Number(values.chunks));
const db = services.db;
const queryVectors = queries.map(() => randomUnit());
const report: Record<string, unknown> = {
  when: new Date().toISOString(),
  machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)}`,
  chunks: Number(values.chunks),
  queries: queries.length,
};

function time(name: string, run: (i: number) => unknown): void {
  const ms: number[] = [];
  for (let round = 0; round < 2; round++) {
    queries.forEach((_, i) => {
      const started = performance.now();
      run(i);
      if (round === 1) ms.push(performance.now() - started);
    });
  }
  report[name] = { p50Ms: Number(percentile(ms, 50).toFixed(1)), p95Ms: Number(percentile(ms, 95).toFixed(1)) };
}

// Keyword: BM25 over in-memory postings (current) against the FTS5 statement it replaces (the
// shared table filtered by the knowledge-base token; still what answers while the postings load),
// the same table joined to items for the filter, and a table of the knowledge base's own (no filter
// at all, but BM25 statistics of that knowledge base alone, which rank worse on small ones:
// docs/retrieval.md).
db.exec(`CREATE VIRTUAL TABLE own_items_fts USING fts5 (title, text, content = '', tokenize = 'porter unicode61 remove_diacritics 2')`);
db.exec(`INSERT INTO own_items_fts (rowid, title, text) SELECT id, title, text FROM items WHERE knowledge_base_id = '${KB}'`);
db.exec(`CREATE VIRTUAL TABLE plain_chunks_fts USING fts5 (title, text, content = '', tokenize = 'porter unicode61 remove_diacritics 2')`);
db.exec(`INSERT INTO plain_chunks_fts (rowid, title, text) SELECT c.id, i.title, c.text FROM chunks c JOIN items i ON i.id = c.item_id`);
const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM items_fts WHERE items_fts MATCH ?');
report.averageMatchingItems = Math.round(queries.reduce((sum, q) => sum + count.get(scopedQuery(q, { knowledgeBaseId: KB }))!.n, 0) / queries.length);
const repo = new SearchRepo(db);
const topItems = queries.map((q) => repo.keywordItems(KB, q, 10, null).map((r) => r.id));

const joined = db.prepare(
  `SELECT i.id, -bm25(items_fts, 3, 1, 0) AS score FROM items_fts JOIN items i ON i.id = items_fts.rowid
   WHERE items_fts MATCH ? AND i.knowledge_base_id = '${KB}' ORDER BY score DESC LIMIT 100`,
);
const own = db.prepare('SELECT rowid AS id, -bm25(own_items_fts, 3, 1) AS score FROM own_items_fts WHERE own_items_fts MATCH ? ORDER BY score DESC LIMIT 100');
const keywordLoadStarted = performance.now();
await services.keywords.load();
report['keyword: loading the in-memory postings (in the background after start-up)'] = { ms: Math.round(performance.now() - keywordLoadStarted) };
time('keyword: BM25 over in-memory postings (current)', (i) => services.keywords.search(KB, words[i]!, 100, null));
time('keyword: FTS5 BM25, knowledge-base token in the query (while the postings load)', (i) => repo.keywordItems(KB, queries[i]!, 100, null));
time('keyword: BM25 joined to items for the knowledge base', (i) => joined.all(`{title text} : (${queries[i]})`));
time("keyword: BM25 in a table of the knowledge base's own", (i) => own.all(queries[i]));

const chunkJoin = db.prepare(
  `SELECT c.id, -bm25(plain_chunks_fts, 3, 1) AS score FROM plain_chunks_fts JOIN chunks c ON c.id = plain_chunks_fts.rowid
   WHERE plain_chunks_fts MATCH ? AND c.item_id IN (SELECT value FROM json_each(?))`,
);
time('passages: chunk MATCH with item tokens of the top 10 (current)', (i) => repo.keywordChunks(queries[i]!, topItems[i]!));
time('passages: chunk MATCH joined to chunks of the top 10', (i) => chunkJoin.all(queries[i], JSON.stringify(topItems[i])));

// Semantic.
const index = services.embedding.index()!;
const loadStarted = performance.now();
index.size();
report['semantic: loading the in-memory index (first search)'] = { ms: Math.round(performance.now() - loadStarted) };
time('semantic: sqlite-vec float[512] exact, k = 300 (before)', (i) => store.nearest(KB, queryVectors[i]!, 300));
time('semantic: in memory, binary scan + int8 rescoring, k = 300 (semantic mode)', (i) => index.nearest(KB, queryVectors[i]!, 300, null));
const owners = db.prepare<[string], { id: number }>('SELECT id FROM chunks WHERE item_id IN (SELECT value FROM json_each(?))');
const hybridCandidates = queries.map((q) => owners.all(JSON.stringify(repo.keywordItems(KB, q, 100, null).map((r) => r.id))).map((r) => r.id));
time('semantic: int8 cosine of the 100 keyword candidates\' chunks (hybrid mode)', (i) => index.similarities(KB, hybridCandidates[i]!, queryVectors[i]!));
services.close();

// Agreement with the exact search, on real embeddings.
const real = await realAgreement(Number(values.real), values['eval-index']);
report['semantic agreement with exact search, real USE-lite vectors'] = real;
console.log(JSON.stringify(report, null, 2));

async function realAgreement(chunkCount: number, evalIndex: string | undefined) {
  const embedder = await createEmbedder({ kind: 'use-lite' });
  const claimVectors = await embedder.embed(claims.map((c) => c.text));
  let kb = 'eval-scifact';
  let realServices: Services;
  if (evalIndex) {
    realServices = await openServices(loadConfig(benchEnv(evalIndex)));
  } else {
    kb = 'kb-real';
    const docs = readJsonl<{ title: string; text: string }>(path.join(EVAL_DIR, 'scifact/corpus.jsonl'));
    const texts = docs.flatMap((d) => d.text.split(/(?<=\.)\s+/)).filter((t) => t.length > 40).slice(0, chunkCount);
    const vectors = await embedder.embed(texts);
    const built = await buildScaleIndex(0);
    realServices = built.services;
    const writer = new IndexRepo(realServices.db, built.store);
    realServices.db.transaction(() => {
      vectors.forEach((vector, i) =>
        writer.writeItem(
          {
            knowledgeBaseId: kb, integrationId: 'bench', externalId: `s-${i}`, sourceType: 'ARTICLE',
            title: '', content: texts[i]!, text: texts[i]!, url: null, sourceData: null, contentHash: `${i}`, seq: 1,
            embedderId: 'use-lite', chunks: [{ position: 0, text: texts[i]!, tokenCount: 40, embedHash: `${i}`, vector }],
          },
          Date.now(),
        ),
      );
    })();
  }
  await embedder.close();
  const exactStore = realServices.embedding.vectors()!;
  const realIndex = realServices.embedding.index()!;
  const agreement: Record<string, number> = { chunksInIndex: realIndex.size(), queries: claimVectors.length };
  for (const k of [10, 100, 300]) {
    let kept = 0;
    let total = 0;
    for (const query of claimVectors) {
      const found = new Set(realIndex.nearest(kb, query, k, null).map((h) => h.chunkId));
      for (const exact of exactStore.nearest(kb, query, k)) {
        total++;
        if (found.has(exact.chunkId)) kept++;
      }
    }
    agreement[`exact top ${k} found`] = Number((kept / total).toFixed(3));
  }
  realServices.close();
  return agreement;
}
