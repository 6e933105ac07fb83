/**
 * Memory of a real `localiq serve` (its whole process tree, /proc) while it is sent PDF
 * decompression bombs: one-page PDFs whose content stream inflates to 1.5 GB or 3 GB of spaces
 * (test/helpers/document-fixtures.ts, deflateBombPdf), and two 1.5 GB ones in one request. Each
 * case runs on a fresh server with its defaults (LOCALIQ_EXTRACT_MEMORY_MB 512): RSS before the
 * upload (the pipeline warmed up), its peak while the file's job runs, and afterwards (5 s after
 * the job settled). Meanwhile a plain `POST /ingest` item is pushed: how long it took to be
 * indexed says whether the other pushes kept being processed.
 *
 * A guard stops a server whose tree passes `--guard-mb` (default 10,000), so a run of code without
 * a cap does not take the machine with it; the case then says so.
 * Usage: node --import tsx bench/extraction-memory.ts [--cases 1.5,3,2x1.5] [--guard-mb 10000]
 */
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { deflateBombPdf } from '../test/helpers/document-fixtures.ts';
import { type ServerChild, startServerChild, stopServerChild, tempDir } from './lib/server-child.ts';
import { treeRss } from './lib/tree-rss.ts';

const { values } = parseArgs({ options: { cases: { type: 'string', default: '1.5,3,2x1.5' }, 'guard-mb': { type: 'string', default: '10000' } } });
const GUARD_MB = Number(values['guard-mb']);
const log = (line: string) => process.stderr.write(`[extraction-memory] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Case = { name: string; files: number; inflatedGb: number };
const CASES: Record<string, Case> = {
  '1.5': { name: '1.5 GB inflated, one file', files: 1, inflatedGb: 1.5 },
  '3': { name: '3 GB inflated, one file', files: 1, inflatedGb: 3 },
  '2x1.5': { name: 'two 1.5 GB files in one request', files: 2, inflatedGb: 1.5 },
};

async function api(server: ServerChild, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${route}`, {
    method,
    headers: { 'x-api-key': server.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

function item(externalId: string) {
  return {
    integrationId: 'shop',
    knowledgeBaseId: 'bench',
    sourceType: 'ARTICLE',
    externalId,
    data: { title: 'Opening hours', content: 'The shop is open from nine to six on weekdays and from ten to two on Saturdays.' },
  };
}

/** Polls a job until it settles (or `deadline`), sampling the tree's RSS and applying the guard. */
async function settle(server: ServerChild, jobId: string, deadline: number, sample: () => void): Promise<{ status: string; error: string | null; ms: number }> {
  const started = performance.now();
  while (Date.now() < deadline && server.child.exitCode === null) {
    sample();
    const job = await api(server, 'GET', `/jobs/${jobId}?knowledgeBaseId=bench`).catch(() => null);
    const status = job?.body?.status as string | undefined;
    if (status && status !== 'queued' && status !== 'processing') return { status, error: job!.body.lastError ?? null, ms: performance.now() - started };
    await sleep(200);
  }
  return { status: server.child.exitCode === null ? 'not settled' : 'server ended', error: null, ms: performance.now() - started };
}

async function runCase(key: string, bomb: Buffer): Promise<Record<string, unknown>> {
  const spec = CASES[key]!;
  const dataDir = tempDir();
  const server = await startServerChild(dataDir);
  const pid = server.child.pid!;
  try {
    // Warm up: the pipeline's model loaded and one item indexed, then settle for 3 s.
    await api(server, 'POST', '/ingest', item('warm-up'));
    await settle(server, 'shop-warm-up', Date.now() + 300_000, () => {});
    await sleep(3_000);
    const beforeMb = treeRss(pid).totalMb;
    let peakMb = beforeMb;
    let guarded = false;
    const sample = () => {
      const now = treeRss(pid).totalMb;
      peakMb = Math.max(peakMb, now);
      if (now > GUARD_MB && !guarded) {
        guarded = true;
        log(`the tree passed ${GUARD_MB} MB (${Math.round(now)} MB): stopping the server`);
        server.child.kill('SIGKILL');
      }
    };
    const sampler = setInterval(sample, 100);

    const form = new FormData();
    form.append('integrationId', 'bomb');
    for (let i = 0; i < spec.files; i++) form.append('file', new Blob([new Uint8Array(bomb)]), `bomb-${i}.pdf`);
    const uploaded = await fetch(`${server.url}/knowledge-bases/bench/files`, { method: 'POST', headers: { 'x-api-key': server.key }, body: form });
    if (!uploaded.ok) throw new Error(`upload answered ${uploaded.status}: ${await uploaded.text()}`);
    const { jobIds } = (await uploaded.json()) as { jobIds: string[] };
    // The plain push, a second after the upload: a worker is then reading a bomb.
    await sleep(1_000);
    await api(server, 'POST', '/ingest', item('during'));
    const deadline = Date.now() + 600_000;
    const plain = settle(server, 'shop-during', deadline, sample);
    const bombs = await Promise.all(jobIds.map((id) => settle(server, id, deadline, sample)));
    const pushed = await plain;
    await sleep(5_000);
    clearInterval(sampler);
    const afterMb = server.child.exitCode === null ? treeRss(pid).totalMb : null;
    return {
      case: spec.name,
      fileMb: Number((bomb.length / 1e6).toFixed(2)),
      beforeMb: Math.round(beforeMb),
      peakMb: Math.round(peakMb),
      peakOverBeforeMb: Math.round(peakMb - beforeMb),
      afterMb: afterMb === null ? null : Math.round(afterMb),
      guardStoppedServer: guarded,
      bombJobs: bombs.map((b) => ({ status: b.status, seconds: Number((b.ms / 1000).toFixed(1)), error: b.error })),
      plainPush: { status: pushed.status, secondsToSettle: Number((pushed.ms / 1000).toFixed(1)) },
    };
  } finally {
    await stopServerChild(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const keys = values.cases.split(',');
  const bombs = new Map<number, Buffer>();
  const results: Record<string, unknown>[] = [];
  for (const key of keys) {
    const spec = CASES[key];
    if (!spec) throw new Error(`unknown case ${key} (${Object.keys(CASES).join(', ')})`);
    if (!bombs.has(spec.inflatedGb)) {
      log(`writing a bomb of ${spec.inflatedGb} GB inflated`);
      bombs.set(spec.inflatedGb, await deflateBombPdf(spec.inflatedGb * 1e9));
    }
    log(`case: ${spec.name}`);
    const result = await runCase(key, bombs.get(spec.inflatedGb)!);
    log(JSON.stringify(result));
    results.push(result);
  }
  const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;
  process.stdout.write(`${JSON.stringify({ machine, guardMb: GUARD_MB, results }, null, 2)}\n`);
}

await main();
