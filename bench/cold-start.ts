/**
 * Cold start of the command line, each a new process: how long `localiq serve` takes until
 * `GET /health` first answers 200 (on a new, empty data folder and on one made beforehand), and
 * `localiq keys list` until it exits. With --checkout DIR, the same commands of another checkout
 * (an earlier version with its node_modules) run alternately with this one's (ABAB…) in the same
 * run: median and p90 of each, and the ratio of the medians.
 *
 * Usage: node --import tsx bench/cold-start.ts [--runs 10] [--checkout DIR]   (--before DIR: the same)
 * This checkout runs what `npm run build` made (out/server); the other one runs whatever its own
 * bin/localiq.js runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchEnv, percentile, tempDir } from './lib/server-child.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '10' }, checkout: { type: 'string' }, before: { type: 'string' } },
});
const runs = Number(values.runs);
const other = values.checkout ?? values.before;
const HEALTH_POLL_MS = 5;

type Checkout = { name: string; root: string; warmDataDir: string };
type Timings = { serveFresh: number[]; serveWarm: number[]; keysList: number[] };

/** A loopback port free now, so the bench can poll /health from the moment the process starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false; // not listening yet
  }
}

/**
 * Milliseconds from spawning `localiq serve` until `GET /health` first answers 200, polled every
 * few milliseconds as a supervisor would; then the server is stopped and its exit awaited.
 */
async function serveMs(checkout: Checkout, dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/localiq.js', 'serve'], {
    cwd: checkout.root,
    env: { ...process.env, ...benchEnv(dataDir, { LOCALIQ_PORT: String(port) }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  let ms = 0;
  while (!gone) {
    if (await healthy(`http://127.0.0.1:${port}/health`)) {
      ms = performance.now() - started;
      break;
    }
    await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
  }
  child.kill('SIGTERM');
  await exited;
  if (!ms) throw new Error(`${checkout.name}: serve exited before /health answered: ${out}`);
  return ms;
}

/** Milliseconds of one `localiq keys list`, start to exit. */
function keysListMs(checkout: Checkout): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['bin/localiq.js', 'keys', 'list'], {
    cwd: checkout.root,
    env: { ...process.env, ...benchEnv(checkout.warmDataDir) },
  });
  if (result.status !== 0) throw new Error(`${checkout.name}: keys list failed: ${result.stderr}`);
  return performance.now() - started;
}

/** Node itself, for scale: the part of every start no build changes. */
function bareNodeMs(): number {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', '']);
  return performance.now() - started;
}

const checkouts: Checkout[] = [{ name: 'this checkout', root: ROOT, warmDataDir: tempDir() }];
if (other) checkouts.unshift({ name: 'other checkout', root: path.resolve(other), warmDataDir: tempDir() });

// Each checkout makes its warm data folder (and a key) once, and starts once untimed, so that
// caches outside the data folder (the OS's file cache; tsx's compile cache for a checkout that
// runs TypeScript) are as a user's second start finds them.
for (const checkout of checkouts) {
  const made = spawnSync(process.execPath, ['bin/localiq.js', 'keys', 'create', '--name', 'bench', '--scopes', 'iq:read'], {
    cwd: checkout.root,
    env: { ...process.env, ...benchEnv(checkout.warmDataDir) },
  });
  if (made.status !== 0) throw new Error(`${checkout.name}: ${made.stderr}`);
  await serveMs(checkout, checkout.warmDataDir);
  keysListMs(checkout);
}

const times = new Map<string, Timings>(checkouts.map((c) => [c.name, { serveFresh: [], serveWarm: [], keysList: [] }]));
const node: number[] = [];
const freshDirs: string[] = [];
for (let run = 0; run < runs; run++) {
  node.push(bareNodeMs());
  // Which checkout goes first alternates, so neither always follows the other's disk writes.
  const order = run % 2 === 0 ? checkouts : [...checkouts].reverse();
  for (const checkout of order) {
    const t = times.get(checkout.name)!;
    const fresh = tempDir();
    freshDirs.push(fresh);
    t.serveFresh.push(await serveMs(checkout, fresh));
    t.serveWarm.push(await serveMs(checkout, checkout.warmDataDir));
    t.keysList.push(keysListMs(checkout));
  }
}
for (const dir of [...freshDirs, ...checkouts.map((c) => c.warmDataDir)]) fs.rmSync(dir, { recursive: true, force: true });

const round = (ms: number) => Math.round(ms);
const stats = (ms: number[]) => ({ medianMs: round(percentile(ms, 50)), p90Ms: round(percentile(ms, 90)), runsMs: ms.map(round) });
const ratio = (measure: keyof Timings) =>
  Math.round((percentile(times.get('this checkout')![measure], 50) / percentile(times.get('other checkout')![measure], 50)) * 100) / 100;

console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
      loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
      runs,
      bareNodeMs: round(percentile(node, 50)),
      checkouts: Object.fromEntries(
        checkouts.map((c) => {
          const t = times.get(c.name)!;
          return [c.name, { root: c.root, serveFreshDataFolder: stats(t.serveFresh), serveWarmDataFolder: stats(t.serveWarm), keysList: stats(t.keysList) }];
        }),
      ),
      ratioOfMediansThisToOther: other === undefined ? undefined : { serveFresh: ratio('serveFresh'), serveWarm: ratio('serveWarm'), keysList: ratio('keysList') },
    },
    null,
    2,
  ),
);
