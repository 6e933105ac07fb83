/**
 * Cold start of the command line: how long `localiq serve` takes until it listens, and
 * `localiq keys list` until it exits, each a new process on a data folder made beforehand.
 * With --before DIR, the same commands of another checkout (an earlier version with its
 * node_modules) run alternately with this one's in the same run; medians and their ratio.
 *
 * Usage: node --import tsx bench/cold-start.ts [--runs 9] [--before DIR]
 * This checkout runs what `npm run build` made (out/server).
 */
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchEnv, percentile, tempDir } from './lib/server-child.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '9' }, before: { type: 'string' } } });
const runs = Number(values.runs);

type Checkout = { name: string; root: string; dataDir: string };

/** Milliseconds from spawning `localiq serve` until it prints where it listens; then it is stopped. */
function serveMs(checkout: Checkout): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/localiq.js', 'serve'], {
    cwd: checkout.root,
    env: { ...process.env, ...benchEnv(checkout.dataDir) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let listened = 0;
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (!listened && /listening on http/.test(out)) {
        listened = performance.now() - started;
        child.kill('SIGTERM');
      }
    });
    child.once('exit', () => (listened ? resolve(listened) : reject(new Error(`serve exited before it listened: ${out}`))));
  });
}

/** Milliseconds of one `localiq keys list`, start to exit. */
function keysListMs(checkout: Checkout): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['bin/localiq.js', 'keys', 'list'], { cwd: checkout.root, env: { ...process.env, ...benchEnv(checkout.dataDir) } });
  if (result.status !== 0) throw new Error(`keys list failed: ${result.stderr}`);
  return performance.now() - started;
}

/** Node itself, for scale: the part of every start no build changes. */
function bareNodeMs(): number {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', '']);
  return performance.now() - started;
}

const checkouts: Checkout[] = [{ name: 'this checkout', root: ROOT, dataDir: tempDir() }];
if (values.before) checkouts.unshift({ name: 'before', root: path.resolve(values.before), dataDir: tempDir() });

// Each checkout makes its own data folder (and a key) once, so the timed starts open an existing one.
for (const checkout of checkouts) {
  const made = spawnSync(process.execPath, ['bin/localiq.js', 'keys', 'create', '--name', 'bench', '--scopes', 'iq:read'], {
    cwd: checkout.root,
    env: { ...process.env, ...benchEnv(checkout.dataDir) },
  });
  if (made.status !== 0) throw new Error(`${checkout.name}: ${made.stderr}`);
  await serveMs(checkout);
}

const times = new Map(checkouts.map((c) => [c.name, { serve: [] as number[], keysList: [] as number[] }]));
const node: number[] = [];
for (let run = 0; run < runs; run++) {
  node.push(bareNodeMs());
  for (const checkout of checkouts) {
    times.get(checkout.name)!.serve.push(await serveMs(checkout));
    times.get(checkout.name)!.keysList.push(keysListMs(checkout));
  }
}

const median = (values: number[]) => Math.round(percentile(values, 50));
const report = Object.fromEntries(
  [...times].map(([name, t]) => [name, { serveUntilListeningMs: median(t.serve), keysListMs: median(t.keysList), serveRunsMs: t.serve.map(Math.round) }]),
);
const ratios =
  values.before === undefined
    ? undefined
    : {
        serve: Math.round((median(times.get('this checkout')!.serve) / median(times.get('before')!.serve)) * 100) / 100,
        keysList: Math.round((median(times.get('this checkout')!.keysList) / median(times.get('before')!.keysList)) * 100) / 100,
      };
console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
      runs,
      bareNodeMs: median(node),
      ...report,
      ratioThisToBefore: ratios,
    },
    null,
    2,
  ),
);
