/**
 * When, during a backup, do pushes wait? Single-item pushes at 16 connections run beside one
 * backup (the Owner's "Back up to the folder now", or `localiq backup` with `--via cli`) of a
 * data folder with a large index (bench/lib/scale-index.ts, pipeline off). The backup's
 * `.partial` file is watched as it grows, is synced and is renamed, and every push slower than
 * `--slow` milliseconds is put on the same clock.
 *
 *   node --import tsx bench/diagnostics/backup-stalls.ts [--via folder|cli --chunks 100000 --slow 100 --timeline]
 *
 * Compare two versions by running it alternately in two checkouts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { backUpToFolder, signInOwner } from '../lib/owner.ts';
import { pushLoad } from '../lib/push-load.ts';
import { buildScaleIndex } from '../lib/scale-index.ts';
import { benchEnv, startServerChild, stopServerChild, tempDir } from '../lib/server-child.ts';

const { values } = parseArgs({
  options: {
    via: { type: 'string', default: 'folder' },
    chunks: { type: 'string', default: '100000' },
    slow: { type: 'string', default: '100' },
    timeline: { type: 'boolean', default: false },
  },
});
if (values.via !== 'folder' && values.via !== 'cli') throw new Error('--via takes folder or cli');
const slowMs = Number(values.slow);
const CLI = path.resolve(import.meta.dirname, '../../bin/localiq.js');

process.stderr.write(`building an index of ${values.chunks} chunks…\n`);
const { services } = await buildScaleIndex(Number(values.chunks));
const dataDir = path.dirname(services.db.name);
services.close();
const server = await startServerChild(dataDir, { LOCALIQ_WORKERS: '0' });
const folder = tempDir();
const events: Array<{ ms: number; event: string }> = [];
let longestWaitMs = 0;
let slowPushes = 0;
try {
  const owner = await signInOwner(server);
  await pushLoad(server.url, server.key, 'warm', 16, 8);

  const started = performance.now();
  const at = () => Math.round(performance.now() - started);
  const load = pushLoad(server.url, server.key, 'during', 16, 3600);
  load.on('response', (_client, _status, _bytes, ms) => {
    longestWaitMs = Math.max(longestWaitMs, Math.round(ms));
    if (ms <= slowMs) return;
    slowPushes++;
    events.push({ ms: at(), event: `push answered after ${Math.round(ms)} ms` });
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));

  // The .partial's size as it grows; "whole" once it is renamed.
  let seen = '';
  const watching = setInterval(() => {
    const names = fs.readdirSync(folder);
    const partial = names.find((name) => name.endsWith('.partial'));
    const state = partial ? `.partial at ${Math.round(fs.statSync(path.join(folder, partial)).size / 1e6)} MB` : names.length > 0 ? 'whole' : '';
    if (state !== seen) events.push({ ms: at(), event: state || 'no file yet' });
    seen = state;
  }, 20);
  events.push({ ms: at(), event: 'backup started' });
  if (values.via === 'folder') await backUpToFolder(server, owner, folder);
  else await runCli(path.join(folder, 'backup.db'));
  events.push({ ms: at(), event: 'backup done' });
  clearInterval(watching);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  load.stop();
  await load;
} finally {
  await stopServerChild(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(folder, { recursive: true, force: true });
}

function runCli(file: string): Promise<void> {
  const child = spawn(process.execPath, [CLI, 'backup', file], { env: { ...process.env, ...benchEnv(dataDir) }, stdio: 'ignore' });
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`backup exited ${code}`)))));
}

const span = (event: string) => events.find((e) => e.event === event)?.ms ?? null;
console.log(
  JSON.stringify({
    via: values.via,
    backupMs: (span('backup done') ?? 0) - (span('backup started') ?? 0),
    longestWaitMs,
    [`pushesOver${slowMs}Ms`]: slowPushes,
    ...(values.timeline ? { timeline: events.map((e) => `${e.ms} ${e.event}`) } : {}),
  }),
);
