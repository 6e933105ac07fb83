/**
 * Ingest acknowledgement benchmark (loopback only, bounded in time):
 *  1. single-item POST /ingest acknowledgements per second, LocalIQ vs a bare Fastify route
 *     returning the same JSON, measured with autocannon in the same run;
 *  2. p50/p99 latency of 1,000-item POST /ingest/bulk requests;
 *  3. the servers' CPU time per acknowledged request (Linux /proc), main thread and other threads.
 * The pipeline is off (LOCALIQ_WORKERS=0): this measures acknowledging, not processing.
 * Usage: npm run bench:ingest [-- --seconds 10 --bulks 40 --connections 64]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { percentile, startServerChild, stopServerChild, tempDir, type ServerChild } from './lib/server-child.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, bulks: { type: 'string', default: '40' }, connections: { type: 'string', default: '64' } },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);

function item(n: number, prefix: string) {
  return {
    integrationId: 'bench',
    knowledgeBaseId: 'kb-bench',
    sourceType: 'ARTICLE',
    externalId: `${prefix}-${n}`,
    data: { title: `Item ${n}`, content: `Benchmark item number ${n}. `.repeat(20), url: `https://example.com/items/${n}` },
  };
}

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

/** Server CPU per acknowledged request during a run, in microseconds. */
function cpuPerRequest(before: ReturnType<typeof cpuSeconds>, after: ReturnType<typeof cpuSeconds>, requests: number) {
  if (!before || !after || requests === 0) return null;
  const us = (seconds: number) => Math.round((seconds * 1e6) / requests);
  const main = after.main - before.main;
  const others = after.others - before.others;
  return { total: us(main + others), mainThread: us(main), otherThreads: us(others) };
}

async function hammer(url: string, key: string, prefix: string, pid: number) {
  let n = 0;
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({
    url: `${url}/ingest`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(item(n++, prefix)) }) }],
  });
  const cpu = cpuPerRequest(cpuBefore, cpuSeconds(pid), result.requests.total);
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx, cpu };
}

async function startBare(): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      const m = /listening on (http:\/\/\S+?) /.exec(d.toString());
      if (m) resolve(m[1]!);
    });
  });
  return { child, url, key: 'none', dataDir: '' };
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
const bare = await startBare();
const bareResult = await hammer(bare.url, bare.key, 'warm', bare.child.pid!);
await stopServerChild(bare);

const localiq = await startServerChild(dataDir, { LOCALIQ_WORKERS: '0' });
const ingestResult = await hammer(localiq.url, localiq.key, 'single', localiq.child.pid!);
const bulkLatencies: number[] = [];
for (let b = 0; b < Number(values.bulks); b++) {
  const body = JSON.stringify({ items: Array.from({ length: 1000 }, (_, i) => item(b * 1000 + i, 'bulk')) });
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
      connections,
      diskSyncP50Ms: Number(syncMs.toFixed(2)),
      ackCeilingRps: Math.round((connections * 1000) / syncMs),
      bareFastifyRps: Math.round(bareResult.rps),
      localiqIngestRps: Math.round(ingestResult.rps),
      ratio: Number((ingestResult.rps / bareResult.rps).toFixed(3)),
      localiqIngestP99Ms: ingestResult.p99,
      // Server CPU per request (all threads; the main thread runs HTTP, the others include the
      // ingest writer thread). The load generator shares the same cores.
      cpuUsPerRequest: { bareFastify: bareResult.cpu, localiq: ingestResult.cpu },
      errors: bareResult.errors + ingestResult.errors,
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
