/**
 * What a backup costs a running server, and how long a restore takes.
 *
 * A data folder with a large index (bench/lib/scale-index.ts: SciFact chunks, random vectors) is
 * served with the pipeline off. Single-item pushes run at a fixed concurrency for as long as a
 * backup runs beside them, then for the same time without one; the report compares their rates
 * and latencies. The backup is `localiq backup` (`--via cli`), the Owner's download from the
 * dashboard (`--via dashboard`) or the Owner's "Back up to the folder now", the automatic backup's
 * path (`--via folder`). Then the server stops and the backup is restored into the same folder.
 *
 *   node --import tsx bench/backup.ts [--chunks 100000 --connections 16 --via cli|dashboard|folder]
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { backupContents, openBackup } from '../server/storage/backup.ts';
import { backUpToFolder, signInOwner, type Owner } from './lib/owner.ts';
import { pushLoad } from './lib/push-load.ts';
import { buildScaleIndex } from './lib/scale-index.ts';
import { benchEnv, startServerChild, stopServerChild, type ServerChild } from './lib/server-child.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    connections: { type: 'string', default: '16' },
    via: { type: 'string', default: 'cli' },
  },
});
const chunks = Number(values.chunks);
const connections = Number(values.connections);
if (values.via !== 'cli' && values.via !== 'dashboard' && values.via !== 'folder') throw new Error('--via takes cli, dashboard or folder');
const via = values.via;
const CLI = path.resolve(import.meta.dirname, '../bin/localiq.js');

function mb(bytes: number): number {
  return Math.round(bytes / 1e5) / 10;
}

function folderBytes(dir: string): number {
  return fs.readdirSync(dir).reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);
}

/** Pushes at a fixed concurrency until `stopWhen` settles, or for that many seconds. */
async function pushes(server: ServerChild, prefix: string, stopWhen: Promise<unknown> | number) {
  const started = performance.now();
  const instance = pushLoad(server.url, server.key, prefix, connections, typeof stopWhen === 'number' ? stopWhen : 3600);
  if (typeof stopWhen !== 'number') void stopWhen.then(() => instance.stop());
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  return {
    seconds: Math.round(seconds * 10) / 10,
    rps: Math.round(result.requests.total / seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    errors: result.errors + result.non2xx,
  };
}

function runBackup(dataDir: string, file: string): Promise<{ seconds: number; report: { jobs: number; bytes: number } }> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'backup', file, '--json'], { env: { ...process.env, ...benchEnv(dataDir) } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.pipe(process.stderr);
  return new Promise((resolve, reject) =>
    child.once('close', (code) =>
      code === 0 ? resolve({ seconds: (performance.now() - started) / 1000, report: JSON.parse(out) }) : reject(new Error(`backup exited ${code}`)),
    ),
  );
}

/** The Owner's download from the dashboard, saved to `file`. */
async function downloadBackup(server: ServerChild, owner: Owner, file: string): Promise<{ seconds: number; report: { jobs: number; bytes: number } }> {
  const started = performance.now();
  const res = await fetch(`${server.url}/admin/api/backup`, { headers: { cookie: owner.cookie } });
  if (res.status !== 200 || !res.body) throw new Error(`backup answered ${res.status}`);
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), fs.createWriteStream(file));
  return { seconds: (performance.now() - started) / 1000, report: reportOf(file) };
}

/** The Owner's "Back up to the folder now" into a folder beside `file`; the backup is moved to `file`. */
async function folderBackup(server: ServerChild, owner: Owner, file: string): Promise<{ seconds: number; report: { jobs: number; bytes: number } }> {
  const folder = fs.mkdtempSync(`${file}-folder-`);
  const started = performance.now();
  const written = await backUpToFolder(server, owner, folder);
  const seconds = (performance.now() - started) / 1000;
  fs.renameSync(written, file);
  fs.rmSync(folder, { recursive: true });
  return { seconds, report: reportOf(file) };
}

function reportOf(file: string): { jobs: number; bytes: number } {
  const backup = openBackup(file);
  try {
    return { jobs: backupContents(backup).jobs, bytes: fs.statSync(file).size };
  } finally {
    backup.close();
  }
}

process.stderr.write(`building an index of ${chunks} chunks…\n`);
const { services, buildSeconds } = await buildScaleIndex(chunks);
const dataDir = path.dirname(services.db.name);
services.close();
const dataMb = mb(folderBytes(dataDir));

const server = await startServerChild(dataDir, { LOCALIQ_WORKERS: '0' });
const file = path.join(dataDir, '..', `${path.basename(dataDir)}-backup.db`);
let backup: Awaited<ReturnType<typeof runBackup>>;
let during: Awaited<ReturnType<typeof pushes>>;
let without: Awaited<ReturnType<typeof pushes>>;
try {
  // Search's in-memory indexes load in the background after start-up, slowing pushes meanwhile:
  // warm up until two runs in a row push at the same rate.
  for (let last = 0, round = 0; ; round++) {
    const { rps } = await pushes(server, `warm-${round}`, 3);
    if (Math.abs(rps - last) < 0.15 * rps) break;
    last = rps;
  }
  const owner = via === 'cli' ? null : await signInOwner(server);
  const backupRun = owner === null ? runBackup(dataDir, file) : via === 'dashboard' ? downloadBackup(server, owner, file) : folderBackup(server, owner, file);
  during = await pushes(server, 'during', backupRun);
  backup = await backupRun;
  without = await pushes(server, 'after', Math.max(3, Math.round(during.seconds)));
} finally {
  await stopServerChild(server);
}

const restoreStarted = performance.now();
const restore = spawnSync(process.execPath, [CLI, 'restore', file, '--json'], { env: { ...process.env, ...benchEnv(dataDir) }, encoding: 'utf8' });
if (restore.status !== 0) throw new Error(`restore failed: ${restore.stderr}`);
const restoreSeconds = (performance.now() - restoreStarted) / 1000;
const restored = JSON.parse(restore.stdout);

const round = (x: number) => Math.round(x * 10) / 10;
console.log(
  JSON.stringify(
    {
      chunks,
      connections,
      via,
      buildSeconds: round(buildSeconds),
      dataFolderMb: dataMb,
      backup: {
        seconds: round(backup.seconds),
        mb: mb(backup.report.bytes),
        mbPerSecond: round(mb(backup.report.bytes) / backup.seconds),
        jobsInBackup: backup.report.jobs,
      },
      ingestDuringBackup: during,
      ingestWithoutBackup: without,
      rateDuringOverWithout: Math.round((during.rps / without.rps) * 100) / 100,
      restore: { seconds: round(restoreSeconds), jobs: restored.jobs, keptAs: path.basename(restored.keptAs) },
    },
    null,
    2,
  ),
);
fs.rmSync(dataDir, { recursive: true, force: true });
fs.rmSync(file, { force: true });
