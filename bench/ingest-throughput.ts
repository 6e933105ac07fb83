/**
 * Ingest acknowledgement benchmark (loopback only, bounded in time):
 *  1. single-item POST /ingest acknowledgements per second, LocalIQ vs a bare Fastify route
 *     returning the same JSON, measured with autocannon in the same run at each of several
 *     concurrencies. Both servers stay up; each round runs every level, the bare route then
 *     LocalIQ, and the median of the rounds' ratios is reported: on a shared 2-core machine the
 *     speed moves within minutes, and a ratio of two back-to-back runs is what holds still;
 *  2. p50/p99 latency of 1,000-item POST /ingest/bulk requests;
 *  3. the servers' CPU time per acknowledged request (Linux /proc), main thread and other threads.
 * The pipeline is off (LOCALIQ_WORKERS=0): this measures acknowledging, not processing.
 * Usage: npm run bench:ingest [-- --seconds 5 --rounds 3 --bulks 40 --connections 16,64,256]
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { benchItem, pushLoad } from './lib/push-load.ts';
import { percentile, startBareServer, startServerChild, stopServerChild, tempDir } from './lib/server-child.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    bulks: { type: 'string', default: '40' },
    connections: { type: 'string', default: '16,64,256' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const levels = values.connections.split(',').map(Number);

/** CPU seconds a process has used so far, its main thread apart from all its other threads (Linux). */
function cpuSeconds(pid: number): { main: number; others: number } | null {
  try {
    let main = 0;
    let others = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, in clock ticks (100 per second on Linux).
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
      if (tid === String(pid)) main = seconds;
      else others += seconds;
    }
    return { main, others };
  } catch {
    return null;
  }
}

type Cpu = { main: number; others: number };

/** Server CPU per acknowledged request over runs, in microseconds. */
function cpuPerRequest(cpu: Cpu, requests: number) {
  const us = (seconds: number) => Math.round((seconds * 1e6) / requests);
  return { total: us(cpu.main + cpu.others), mainThread: us(cpu.main), otherThreads: us(cpu.others) };
}

async function hammer(url: string, key: string, prefix: string, pid: number, connections: number, duration = seconds) {
  const cpuBefore = cpuSeconds(pid);
  const result = await pushLoad(url, key, prefix, connections, duration);
  const cpuAfter = cpuSeconds(pid);
  const cpu = cpuBefore && cpuAfter ? { main: cpuAfter.main - cpuBefore.main, others: cpuAfter.others - cpuBefore.others } : null;
  return { rps: result.requests.average, requests: result.requests.total, p99: result.latency.p99, errors: result.errors + result.non2xx, cpu };
}

type Run = Awaited<ReturnType<typeof hammer>>;

const median = (values: number[]) => percentile(values, 50);

/** One server's runs at one level: median rate, worst p99, CPU per request over all of them. */
function summary(runs: Run[]) {
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const cpu = runs.every((run) => run.cpu)
    ? cpuPerRequest({ main: runs.reduce((s, r) => s + r.cpu!.main, 0), others: runs.reduce((s, r) => s + r.cpu!.others, 0) }, requests)
    : null;
  return { rps: Math.round(median(runs.map((run) => run.rps))), p99Ms: Math.max(...runs.map((run) => run.p99)), cpu };
}

/**
 * An acknowledgement waits for one disk sync, so with N connections the rate can never exceed
 * N / sync latency (group commit shares a sync among the pushes that arrive together).
 */
function fdatasyncMs(dir: string): number {
  const fd = fs.openSync(path.join(dir, 'sync-probe'), 'w');
  const times: number[] = [];
  for (let i = 0; i < 100; i++) {
    fs.writeSync(fd, Buffer.alloc(4096, i));
    const started = performance.now();
    fs.fdatasyncSync(fd);
    times.push(performance.now() - started);
  }
  fs.closeSync(fd);
  return percentile(times, 50);
}

const dataDir = tempDir();
const syncMs = fdatasyncMs(dataDir);
const bare = await startBareServer();
const localiq = await startServerChild(dataDir, { LOCALIQ_WORKERS: '0' });
// Warm both up (JIT, the writer thread, the first pages of the database) before measuring.
await hammer(bare.url, bare.key, 'warm', bare.child.pid!, 16, 5);
await hammer(localiq.url, localiq.key, 'warm', localiq.child.pid!, 16, 5);
// Rounds go over every level, so each round compares the two servers' best rates within a
// minute of each other.
const bareRuns = new Map<number, Run[]>(levels.map((c) => [c, []]));
const ingestRuns = new Map<number, Run[]>(levels.map((c) => [c, []]));
const peakRatios: number[] = [];
for (let round = 0; round < rounds; round++) {
  for (const connections of levels) {
    bareRuns.get(connections)!.push(await hammer(bare.url, bare.key, `bare-${connections}-${round}`, bare.child.pid!, connections));
    ingestRuns.get(connections)!.push(await hammer(localiq.url, localiq.key, `single-${connections}-${round}`, localiq.child.pid!, connections));
  }
  const best = (runs: Map<number, Run[]>) => Math.max(...levels.map((c) => runs.get(c)![round]!.rps));
  peakRatios.push(best(ingestRuns) / best(bareRuns));
}
const ratioSummary = (ratios: number[]) => ({
  median: Number(median(ratios).toFixed(3)),
  range: [Number(Math.min(...ratios).toFixed(3)), Number(Math.max(...ratios).toFixed(3))],
});
const perLevel = levels.map((connections) => {
  const bareLevel = bareRuns.get(connections)!;
  const ingestLevel = ingestRuns.get(connections)!;
  const bareSummary = summary(bareLevel);
  const ingestSummary = summary(ingestLevel);
  return {
    connections,
    bareFastifyRps: bareSummary.rps,
    localiqIngestRps: ingestSummary.rps,
    // The median of the rounds' ratios, and the lowest and highest of them.
    ratio: ratioSummary(ingestLevel.map((run, round) => run.rps / bareLevel[round]!.rps)),
    ackCeilingRps: Math.round((connections * 1000) / syncMs),
    bareP99Ms: bareSummary.p99Ms,
    localiqIngestP99Ms: ingestSummary.p99Ms,
    // Server CPU per request (all threads; the main thread runs HTTP, the others include the
    // ingest writer thread). The load generator shares the same cores.
    cpuUsPerRequest: { bareFastify: bareSummary.cpu, localiq: ingestSummary.cpu },
    errors: [...bareLevel, ...ingestLevel].reduce((sum, run) => sum + run.errors, 0),
  };
});
await stopServerChild(bare);
const bulkLatencies: number[] = [];
for (let b = 0; b < Number(values.bulks); b++) {
  const body = JSON.stringify({ items: Array.from({ length: 1000 }, (_, i) => benchItem(b * 1000 + i, 'bulk')) });
  const started = performance.now();
  const res = await fetch(`${localiq.url}/ingest/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': localiq.key },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`bulk answered ${res.status}`);
  bulkLatencies.push(performance.now() - started);
}
await stopServerChild(localiq);

console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
      seconds,
      rounds,
      diskSyncP50Ms: Number(syncMs.toFixed(2)),
      levels: perLevel,
      // Capacity: in each round, LocalIQ's best rate over the levels against the bare route's best.
      peakRatio: ratioSummary(peakRatios),
      bulk1000: {
        requests: bulkLatencies.length,
        p50Ms: Math.round(percentile(bulkLatencies, 50)),
        p99Ms: Math.round(percentile(bulkLatencies, 99)),
      },
    },
    null,
    2,
  ),
);
