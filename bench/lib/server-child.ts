import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config.ts';
import { openServices } from '../../server/services.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

export type ServerChild = { child: ChildProcess; url: string; key: string; dataDir: string };

/** Environment of a benchmark server: loopback, file secret, no rate limit in the way. */
export function benchEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    LOCALIQ_DATA_DIR: dataDir,
    LOCALIQ_SECRET_STORE: 'file',
    LOCALIQ_PORT: '0',
    LOCALIQ_LOG_LEVEL: 'warn',
    LOCALIQ_RATE_LIMIT_PER_SECOND: '1000000',
    LOCALIQ_RATE_LIMIT_BURST: '1000000',
    ...extra,
  };
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-bench-'));
}

/** A key for the benchmark, created directly in the data folder before the server starts. */
export async function createKey(dataDir: string): Promise<string> {
  const services = await openServices(loadConfig(benchEnv(dataDir)));
  try {
    return services.keys.create({ name: 'bench', scopes: ['iq:import', 'iq:read'] }).value;
  } finally {
    services.close();
  }
}

/** A key made by the `localiq` command of another checkout (whose schema may be older than this one's). */
function createKeyWithCli(root: string, dataDir: string): string {
  const out = execFileSync(process.execPath, ['bin/localiq.js', 'keys', 'create', '--name', 'bench', '--scopes', 'iq:import,iq:read', '--json'], {
    cwd: root,
    env: { ...process.env, ...benchEnv(dataDir) },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out.toString()) as { value: string }).value;
}

/**
 * `localiq serve` as its own process, so its memory and CPU are its own; from this checkout, or
 * from `root`, another checkout, to compare two versions in one run.
 */
export async function startServerChild(dataDir: string, extra: Record<string, string> = {}, root = ROOT): Promise<ServerChild> {
  const key = root === ROOT ? await createKey(dataDir) : createKeyWithCli(root, dataDir);
  const child = spawn(process.execPath, ['bin/localiq.js', 'serve'], {
    cwd: root,
    env: { ...process.env, ...benchEnv(dataDir, extra) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/\S+?) /.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  return { child, url, key, dataDir };
}

/** The bare Fastify route the ingest benches compare against (bench/bare-server.ts). */
export async function startBareServer(): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /listening on (http:\/\/\S+?) /.exec(d.toString());
      if (m) resolve(m[1]!);
    });
  });
  return { child, url, key: 'none', dataDir: '' };
}

export function stopServerChild(server: ServerChild): Promise<void> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve();
    server.child.once('exit', () => resolve());
    server.child.kill('SIGTERM');
  });
}

/** Peak resident memory of a process so far (Linux). */
export function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024);
}

export async function call(server: ServerChild, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.url}${route}`, {
    method,
    headers: { 'x-api-key': server.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status !== 200) throw new Error(`${method} ${route} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** Waits until the knowledge base has no queued or processing jobs. */
export async function drain(server: ServerChild, knowledgeBaseId: string, timeoutMs = 30 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { data } = await call(server, 'GET', '/knowledge-bases');
    const kb = data.find((k: { id: string }) => k.id === knowledgeBaseId);
    if (kb && kb.pendingJobs === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the queue did not drain in time');
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Median milliseconds of `repeat` runs of `run`, to two decimals. */
export function medianMs(repeat: number, run: () => unknown): number {
  const ms: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    run();
    ms.push(performance.now() - t);
  }
  return Number(percentile(ms, 50).toFixed(2));
}

export function readJsonl<T>(file: string): T[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as T);
}

/** The public eval sets: `../shared/eval` beside the checkout, or LOCALIQ_EVAL_DIR (a checkout elsewhere, e.g. a git worktree). */
export const EVAL_DIR = process.env.LOCALIQ_EVAL_DIR ?? path.resolve(ROOT, '../shared/eval');
