/**
 * Load and soak (loopback only, bounded): a real `localiq serve` with its pipeline takes a steady
 * rate of pushes (new items and updates, so the workers always have embedding to do) and, at the
 * same time, a steady rate of reads (keyword and hybrid searches, job lookups) for several minutes.
 * Reports errors, acknowledgement latency (p50/p99/max), the server's RSS sampled every few
 * seconds with a least-squares trend, the queue depth over time, and how long the queue takes to
 * drain once the load stops.
 * Usage: npm run reliability:soak [-- --seconds 300 --ingest-rate 10 --read-rate 10 --workers 1]
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { call, startServerChild, stopServerChild, tempDir } from '../lib/server-child.ts';
import { allScopesKey, linearFit, rssMb, sleep } from './lib.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '300' },
    'ingest-rate': { type: 'string', default: '10' },
    'read-rate': { type: 'string', default: '10' },
    workers: { type: 'string', default: '1' },
    'sample-every': { type: 'string', default: '5' },
  },
});
const seconds = Number(values.seconds);
const ingestRate = Number(values['ingest-rate']);
const readRate = Number(values['read-rate']);
const KB = 'kb-soak';
const POOL = 2_000;
const WORDS = 'delivery invoice warranty repair opening hours parking returns gift card refund order shipping size colour fabric battery'.split(' ');

function item(id: number, version: number) {
  const words = Array.from({ length: 30 }, (_, i) => WORDS[(id * 7 + version * 3 + i * 5) % WORDS.length]).join(' ');
  return {
    integrationId: 'soak',
    knowledgeBaseId: KB,
    sourceType: 'ARTICLE',
    externalId: `a-${id}`,
    data: { title: `Article ${id}`, content: `Version ${version}. ${words}. Reference ${id}-${version}.` },
  };
}

const dataDir = tempDir();
// A key with every scope, created before the server starts (bench servers take no rate limit).
const key = await allScopesKey(dataDir);
const server = await startServerChild(dataDir, { LOCALIQ_WORKERS: values.workers! });
server.key = key;
const pid = server.child.pid!;

// Seed: the first items, so searches and job lookups find something from the start.
await call(server, 'POST', '/ingest/bulk', { items: Array.from({ length: 200 }, (_, i) => item(i, 0)) });

const samples: Array<{ t: number; rssMb: number; pendingJobs: number }> = [];
const started = Date.now();
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const { data } = await call(server, 'GET', '/knowledge-bases');
    const kb = data.find((k: { id: string }) => k.id === KB);
    samples.push({ t: (Date.now() - started) / 1000, rssMb: Math.round(rssMb(pid) * 10) / 10, pendingJobs: kb?.pendingJobs ?? 0 });
    await sleep(Number(values['sample-every']) * 1000);
  }
})();

let fresh = 200;
let version = 1;
const headers = { 'content-type': 'application/json', 'x-api-key': key };
const ingest = autocannon({
  url: `${server.url}/ingest`,
  method: 'POST',
  connections: 4,
  overallRate: ingestRate,
  duration: seconds,
  headers,
  requests: [
    // New items and updates of existing ones, alternately: both give the workers embedding to do.
    { setupRequest: (req) => ({ ...req, body: JSON.stringify(item(fresh++, 0)) }) },
    { setupRequest: (req) => ({ ...req, body: JSON.stringify(item(Math.floor(Math.random() * Math.min(fresh, POOL)), version++)) }) },
  ],
});
let q = 0;
const reads = autocannon({
  url: server.url,
  connections: 4,
  overallRate: readRate,
  duration: seconds,
  headers,
  requests: [
    { method: 'POST', path: `/knowledge-bases/${KB}/search`, setupRequest: (req) => ({ ...req, body: JSON.stringify({ query: `${WORDS[q++ % WORDS.length]} ${WORDS[q % WORDS.length]}`, mode: 'keyword' }) }) },
    { method: 'POST', path: `/knowledge-bases/${KB}/search`, setupRequest: (req) => ({ ...req, body: JSON.stringify({ query: `how do I ${WORDS[q++ % WORDS.length]}`, mode: 'hybrid' }) }) },
    { method: 'GET', setupRequest: (req) => ({ ...req, path: `/jobs/soak-a-${q++ % 200}?knowledgeBaseId=${KB}` }) },
  ],
});
const [ingestResult, readResult] = await Promise.all([ingest, reads]);
const loadSeconds = (Date.now() - started) / 1000;

// Drain: no more load; the queue must empty by itself.
const drainStarted = Date.now();
let pending = Infinity;
while (pending > 0 && Date.now() - drainStarted < 20 * 60_000) {
  const { data } = await call(server, 'GET', '/knowledge-bases');
  pending = data.find((k: { id: string }) => k.id === KB)?.pendingJobs ?? 0;
  if (pending > 0) await sleep(1_000);
}
const drainSeconds = (Date.now() - drainStarted) / 1000;
sampling = false;
await sampler;
const { data: kbs } = await call(server, 'GET', '/knowledge-bases');
const jobs = await call(server, 'GET', `/jobs?knowledgeBaseId=${KB}&status=failed&limit=10`);
await stopServerChild(server);

// The trend over the steady part (the first minute is the model and caches warming up).
const steady = samples.filter((s) => s.t >= Math.min(60, loadSeconds / 3) && s.t <= loadSeconds);
const fit = linearFit(steady.map((s) => s.t / 60), steady.map((s) => s.rssMb));
const meanRss = steady.reduce((a, s) => a + s.rssMb, 0) / steady.length;
const errors = (r: typeof ingestResult) => ({ errors: r.errors, non2xx: r.non2xx, timeouts: r.timeouts });

console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      machine: `${os.cpus().length} cores, node ${process.version} (shared with other work)`,
      workers: Number(values.workers),
      loadSeconds: Math.round(loadSeconds),
      ingest: {
        rateTarget: ingestRate,
        requests: ingestResult.requests.total,
        ...errors(ingestResult),
        ackLatencyMs: { p50: ingestResult.latency.p50, p99: ingestResult.latency.p99, max: ingestResult.latency.max },
      },
      reads: {
        rateTarget: readRate,
        requests: readResult.requests.total,
        ...errors(readResult),
        latencyMs: { p50: readResult.latency.p50, p99: readResult.latency.p99, max: readResult.latency.max },
      },
      rss: {
        samples: samples.length,
        firstMb: samples[0]?.rssMb,
        steadyMeanMb: Math.round(meanRss),
        steadyMinMb: Math.min(...steady.map((s) => s.rssMb)),
        steadyMaxMb: Math.max(...steady.map((s) => s.rssMb)),
        trendMbPerMinute: Number(fit.slope.toFixed(2)),
        trendPercentOfMeanPerMinute: Number(((fit.slope / meanRss) * 100).toFixed(2)),
      },
      queue: {
        maxPendingDuringLoad: Math.max(...samples.filter((s) => s.t <= loadSeconds).map((s) => s.pendingJobs)),
        pendingAtEndOfLoad: samples.filter((s) => s.t <= loadSeconds).at(-1)?.pendingJobs,
        drainSeconds: Math.round(drainSeconds),
        drained: pending === 0,
        failedJobs: jobs.data.length,
      },
      index: kbs.find((k: { id: string }) => k.id === KB),
      samples: `seconds:rssMb:pendingJobs ${samples.map((s) => `${Math.round(s.t)}:${Math.round(s.rssMb)}:${s.pendingJobs}`).join(' ')}`,
    },
    null,
    2,
  ),
);
