/**
 * Pushes right after start-up, while search's in-memory indexes (keyword postings, vectors) load
 * in the background from a large data folder (bench/lib/scale-index.ts).
 *
 * The server starts with the pipeline off; from the moment it listens, single-item pushes run at
 * a fixed concurrency in windows of two seconds, until two windows after the server logged
 * "search indexes loaded". Each window reports its rate and latencies; the summary compares the
 * windows during the load with those after it. Half a second in, one semantic search is asked
 * (it needs the vectors in memory); its latency is reported.
 *
 *   node --import tsx bench/startup-load.ts [--chunks 100000 --connections 16 --window 2]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pushLoad } from './lib/push-load.ts';
import { buildScaleIndex, SCALE_KB } from './lib/scale-index.ts';
import { call, percentile, startServerChild, stopServerChild } from './lib/server-child.ts';

const { values } = parseArgs({
  options: { chunks: { type: 'string', default: '100000' }, connections: { type: 'string', default: '16' }, window: { type: 'string', default: '2' } },
});
const chunks = Number(values.chunks);
const connections = Number(values.connections);
const windowSeconds = Number(values.window);

process.stderr.write(`building an index of ${chunks} chunks…\n`);
const { services } = await buildScaleIndex(chunks);
const dataDir = path.dirname(services.db.name);
services.close();

const startedAt = performance.now();
const server = await startServerChild(dataDir, { LOCALIQ_WORKERS: '0', LOCALIQ_LOG_LEVEL: 'info' });
const listeningMs = Math.round(performance.now() - startedAt);
/** The load's own time as the server logs it, and when the bench saw the line (its own clock). */
let loadedMs: number | null = null;
let loadedAtMs: number | null = null;
let logged = '';
server.child.stdout!.on('data', (d: Buffer) => {
  logged += d;
  const line = logged.split('\n').find((l) => l.includes('search indexes loaded'));
  if (line && loadedMs === null) {
    loadedMs = JSON.parse(line).ms;
    loadedAtMs = Math.round(performance.now() - startedAt);
  }
});

const searchAsked = new Promise<number>((resolve, reject) =>
  setTimeout(() => {
    const asked = performance.now();
    call(server, 'POST', `/knowledge-bases/${SCALE_KB}/search`, { query: 'gene expression in cancer cells', mode: 'semantic', topK: 10 })
      .then(() => resolve(Math.round(performance.now() - asked)), reject);
  }, 500),
);

type Phase = 'loading' | 'load ended' | 'loaded';
type Window = { startMs: number; phase: Phase; rps: number; p50Ms: number; p99Ms: number; maxMs: number; errors: number };
const windows: Window[] = [];
try {
  for (let after = 0; after < 2 && windows.length < 120; ) {
    const loadingAtStart = loadedMs === null;
    const startMs = Math.round(performance.now() - startedAt);
    const result = await pushLoad(server.url, server.key, `start-${windows.length}`, connections, windowSeconds);
    const phase: Phase = !loadingAtStart ? 'loaded' : loadedMs === null ? 'loading' : 'load ended';
    windows.push({
      startMs,
      phase,
      rps: Math.round(result.requests.total / windowSeconds),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      maxMs: result.latency.max,
      errors: result.errors + result.non2xx,
    });
    if (phase === 'loaded') after++;
  }
} finally {
  await stopServerChild(server);
}

const summarize = (ws: Window[]) =>
  ws.length === 0
    ? null
    : { windows: ws.length, rps: Math.round(percentile(ws.map((w) => w.rps), 50)), p50Ms: Math.max(...ws.map((w) => w.p50Ms)), p99Ms: Math.max(...ws.map((w) => w.p99Ms)) };
console.log(
  JSON.stringify(
    {
      chunks,
      connections,
      windowSeconds,
      listeningMs,
      indexesLoadedMs: loadedMs,
      indexesLoadedAtMs: loadedAtMs,
      semanticSearchMs: await searchAsked,
      duringLoad: summarize(windows.filter((w) => w.phase === 'loading')),
      afterLoad: summarize(windows.filter((w) => w.phase === 'loaded')),
      windows,
    },
    null,
    2,
  ),
);
