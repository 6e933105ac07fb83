/**
 * Why search costs what it costs at 100,000 chunks: times the parts of a hybrid search and the
 * alternatives considered for each, on the index bench/search-latency.ts uses
 * (bench/lib/scale-index.ts: SciFact texts, random unit vectors). Query embedding excluded.
 * Usage: node --import tsx bench/search-alternatives.ts [--chunks 100000] [--queries 100]
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ftsQuery } from '../server/retrieval/query-terms.ts';
import { fromBlob } from '../server/storage/vector-store.ts';
import { buildScaleIndex, DIMENSION, randomUnit, SCALE_KB as KB } from './lib/scale-index.ts';
import { EVAL_DIR, percentile, readJsonl } from './lib/server-child.ts';

const { values } = parseArgs({ options: { chunks: { type: 'string', default: '100000' }, queries: { type: 'string', default: '100' } } });
const queries = readJsonl<{ text: string }>(path.join(EVAL_DIR, 'scifact/queries-train.jsonl'))
  .slice(0, Number(values.queries))
  .map((q) => ftsQuery(q.text))
  .filter((q): q is string => q !== null);

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

const blob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM items_fts WHERE items_fts MATCH ?');
report.averageMatchingItems = Math.round(queries.reduce((sum, q) => sum + count.get(q)!.n, 0) / queries.length);

const itemsJoined = db.prepare(
  `SELECT i.id, -bm25(items_fts, 3, 1.0) AS score FROM items_fts JOIN items i ON i.id = items_fts.rowid
   WHERE items_fts MATCH ? AND i.knowledge_base_id = '${KB}' ORDER BY score DESC LIMIT 100`,
);
const itemsAlone = db.prepare<[string], { id: number }>(
  'SELECT rowid AS id, -bm25(items_fts, 3, 1.0) AS score FROM items_fts WHERE items_fts MATCH ? ORDER BY score DESC LIMIT 100',
);
time('keyword: items BM25 joined for the knowledge-base filter (current)', (i) => itemsJoined.all(queries[i]));
time('keyword: items BM25 without the join', (i) => itemsAlone.all(queries[i]!));

const topItems = queries.map((q) => itemsAlone.all(q).slice(0, 10).map((r) => r.id));
const passages = db.prepare(
  `SELECT c.id, -bm25(chunks_fts, 3, 1.0) AS score FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
   WHERE chunks_fts MATCH ? AND c.item_id IN (SELECT value FROM json_each(?))`,
);
const chunkRange = db.prepare<[number], { lo: number; hi: number }>('SELECT min(id) AS lo, max(id) AS hi FROM chunks WHERE item_id = ?');
const passagesInRange = db.prepare(
  'SELECT rowid, -bm25(chunks_fts, 3, 1.0) AS score FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid BETWEEN ? AND ?',
);
time('passages: chunk MATCH restricted to the top 10 items (current)', (i) => passages.all(queries[i], JSON.stringify(topItems[i])));
time('passages: chunk MATCH per item by rowid range', (i) => {
  for (const id of topItems[i]!) {
    const range = chunkRange.get(id)!;
    passagesInRange.all(queries[i], range.lo, range.hi);
  }
});

time('semantic: sqlite-vec float[512], exact, k=300 (current)', (i) => store.nearest(KB, queryVectors[i]!, 300));
db.exec(`CREATE VIRTUAL TABLE bits USING vec0(chunk_id INTEGER PRIMARY KEY, knowledge_base_id TEXT PARTITION KEY, embedding bit[${DIMENSION}])`);
db.exec(`INSERT INTO bits SELECT chunk_id, knowledge_base_id, vec_quantize_binary(embedding) FROM ${store.table}`);
const bitKnn = db.prepare<[Buffer], { chunk_id: number }>(
  `SELECT chunk_id FROM bits WHERE embedding MATCH vec_quantize_binary(?) AND k = 1000 AND knowledge_base_id = '${KB}'`,
);
time('semantic: sqlite-vec bit[512] (binary quantized), k=1000', (i) => bitKnn.all(blob(queryVectors[i]!)));

// Binary codes in memory: one bit per dimension (the sign), Hamming distance by popcount.
const rows = db.prepare<[], { chunk_id: number; embedding: Buffer }>(`SELECT chunk_id, embedding FROM ${store.table}`).all();
const WORDS = DIMENSION / 32;
function binaryCode(vector: Float32Array, into: Uint32Array, offset: number): void {
  for (let d = 0; d < DIMENSION; d++) if (vector[d]! > 0) into[offset + (d >> 5)]! |= 1 << (d & 31);
}
const codes = new Uint32Array(rows.length * WORDS);
rows.forEach((row, i) => binaryCode(fromBlob(row.embedding), codes, i * WORDS));
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
time('semantic: binary codes in memory, Hamming scan of every chunk in TypeScript', (i) => {
  const query = new Uint32Array(WORDS);
  binaryCode(queryVectors[i]!, query, 0);
  const distances = new Uint16Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    let d = 0;
    for (let w = 0; w < WORDS; w++) d += popcount(codes[r * WORDS + w]! ^ query[w]!);
    distances[r] = d;
  }
  return distances;
});

services.close();
console.log(JSON.stringify(report, null, 2));
