/**
 * Ingest acknowledgement benchmark (loopback only, bounded in time):
 *  1. single-item POST /ingest acknowledgements per second, LocalIQ vs a bare Fastify route
 *     returning the same JSON, measured with autocannon in the same run;
 *  2. p50/p99 latency of 1,000-item POST /ingest/bulk requests.
 * Usage: npm run bench:ingest [-- --seconds 10 --bulks 40]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { openServices } from '../server/services.ts';
import { loadConfig } from '../server/config.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, bulks: { type: 'string', default: '40' }, connections: { type: 'string', default: '16' } },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const root = path.resolve(import.meta.dirname, '..');

function start(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/\S+?) /.exec(out);
      if (m) resolve({ child, url: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function item(n: number, prefix: string) {
  return {
    integrationId: 'bench',
    knowledgeBaseId: 'kb-bench',
    sourceType: 'ARTICLE',
    externalId: `${prefix}-${n}`,
    data: { title: `Item ${n}`, content: `Benchmark item number ${n}. `.repeat(20), url: `https://example.com/items/${n}` },
  };
}

async function hammer(url: string, key: string, prefix: string) {
  let n = 0;
  const result = await autocannon({
    url: `${url}/ingest`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(item(n++, prefix)) }) }],
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-bench-'));
const env = {
  LOCALIQ_DATA_DIR: dataDir,
  LOCALIQ_SECRET_STORE: 'file',
  LOCALIQ_PORT: '0',
  LOCALIQ_LOG_LEVEL: 'warn',
  // The benchmark measures the ingest path, not the per-key limiter.
  LOCALIQ_RATE_LIMIT_PER_SECOND: '1000000',
  LOCALIQ_RATE_LIMIT_BURST: '1000000',
};
const services = await openServices(loadConfig(env));
const key = services.keys.create({ name: 'bench', scopes: ['iq:import'] }).value;
services.close();

const bare = await start(['--import', 'tsx', 'bench/bare-server.ts'], {});
const bareResult = await hammer(bare.url, key, 'warm');
await stop(bare.child);

const localiq = await start(['bin/localiq.js', 'serve'], env);
const ingestResult = await hammer(localiq.url, key, 'single');

const bulkLatencies: number[] = [];
for (let b = 0; b < Number(values.bulks); b++) {
  const body = JSON.stringify({ items: Array.from({ length: 1000 }, (_, i) => item(b * 1000 + i, 'bulk')) });
  const started = performance.now();
  const res = await fetch(`${localiq.url}/ingest/bulk`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`bulk answered ${res.status}`);
  bulkLatencies.push(performance.now() - started);
}
await stop(localiq.child);
fs.rmSync(dataDir, { recursive: true, force: true });
bulkLatencies.sort((a, b) => a - b);

const report = {
  when: new Date().toISOString(),
  machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  seconds,
  connections,
  bareFastifyRps: Math.round(bareResult.rps),
  localiqIngestRps: Math.round(ingestResult.rps),
  ratio: Number((ingestResult.rps / bareResult.rps).toFixed(3)),
  localiqIngestP99Ms: ingestResult.p99,
  errors: bareResult.errors + ingestResult.errors,
  bulk1000: {
    requests: bulkLatencies.length,
    p50Ms: Math.round(percentile(bulkLatencies, 50)),
    p99Ms: Math.round(percentile(bulkLatencies, 99)),
  },
};
console.log(JSON.stringify(report, null, 2));
