/**
 * What keeping a website in sync costs: a 1,000-page shop site on loopback (shared layout, a
 * gzipped sitemap, ETags), crawled once in full, then re-synced unchanged, measured two ways in
 * one run:
 *
 * - the crawl alone: the website source's crawl (server/sources/crawl.ts, fetchPage) in this
 *   process; requests, bytes, this process's CPU seconds and wall time, pages/s crawled and
 *   extracted;
 * - the whole appliance: a real `localiq serve` (the build in out/) with the site as a website
 *   source added through the admin API; each sync is waited for until every page it pushed is
 *   indexed (no queued or processing job), and the CPU counted is the server's whole process tree
 *   from /proc (its threads, the pipeline's workers, reader processes). Reports requests, bytes,
 *   pages pushed, jobs created, chunks embedded, CPU seconds, and pages/s crawled and extracted
 *   beside pages/s indexed.
 *
 * Goals: the unchanged re-sync re-embeds no page and costs at most 10 % of a full sync's CPU. The
 * site runs in a child process, so its own CPU is in neither figure.
 *
 *   npm run build && node --import tsx bench/site-resync.ts [--pages 1000] [--poll-ms 500]
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import path from 'node:path';
import { DB_FILE_NAME } from '../server/storage/db.ts';
import { type CrawlEvent, crawlSite, type KnownPage } from '../server/sources/crawl.ts';
import { fetchPage } from '../server/sources/fetch-page.ts';
import { USER_AGENT } from '../server/sources/sync.ts';
import { adminCall, type Owner, signInOwner } from './lib/owner.ts';
import { call, type ServerChild, startServerChild, stopServerChild, tempDir } from './lib/server-child.ts';
import { treeCpuSeconds } from './lib/tree-cpu.ts';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '1000' }, 'poll-ms': { type: 'string', default: '500' }, serve: { type: 'boolean' } } });
const PAGES = Number(values.pages);
const POLL_MS = Number(values['poll-ms']);

const words = 'candle wax wick soy jar scent lavender cedar fig amber glass burn hours trim gift shop order delivery refund workshop'.split(' ');
function prose(seed: number, count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += `${words[(seed * 7 + i * 13) % words.length]}${i % 12 === 11 ? '. ' : ' '}`;
  return text;
}
function pageHtml(i: number): string {
  const links = [1, 2, 3].map((d) => `<a href="/p/${(i + d * 37) % PAGES}">related ${d}</a>`).join(' ');
  return `<!doctype html><html><head><title>Product ${i}</title><link rel="canonical" href="/p/${i}"></head><body>
<div class="cookie-banner">We use cookies. <button>Accept</button></div>
<header class="site-header"><nav><a href="/">Home</a><a href="/p/0">Shop</a><a href="/about">About</a></nav></header>
<main><article><h1>Product ${i}</h1><p>${prose(i, 120)}</p><h2>Care</h2><p>${prose(i + 1, 80)}</p><p>${links}</p></article></main>
<footer class="site-footer">Corner Candle Co., 12 High Street</footer></body></html>`;
}

const pages = Array.from({ length: PAGES }, (_, i) => pageHtml(i));
const server = http.createServer((request, response) => {
  const path = request.url ?? '/';
  const send = (type: string, body: Buffer | string) => {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
    const etag = `"${createHash('sha1').update(bytes).digest('hex')}"`;
    if (request.headers['if-none-match'] === etag) return void response.writeHead(304, { etag }).end();
    response.writeHead(200, { 'content-type': type, etag }).end(bytes);
  };
  if (path === '/robots.txt') return send('text/plain', `User-agent: *\nDisallow: /cart\nSitemap: http://${request.headers.host}/sitemap.xml.gz\n`);
  if (path === '/sitemap.xml.gz') {
    return send('application/gzip', gzipSync(`<urlset>${pages.map((_, i) => `<url><loc>http://${request.headers.host}/p/${i}</loc></url>`).join('')}</urlset>`));
  }
  const match = /^\/p\/(\d+)$/.exec(path);
  if (match && Number(match[1]) < PAGES) return send('text/html', pages[Number(match[1])]!);
  if (path === '/') return send('text/html', pageHtml(0).replace('/p/0"', '/"'));
  response.writeHead(404).end();
});
if (values.serve) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send!((server.address() as AddressInfo).port);
} else {
  await measure();
}

async function measure(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--pages', String(PAGES), '--serve'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (message) => resolve(message as number)));
  const start = `http://127.0.0.1:${port}/`;

  async function run(known: Map<string, KnownPage>) {
    const cpu = process.cpuUsage();
    const wall = performance.now();
    const events: CrawlEvent[] = [];
    const result = await crawlSite(
      { startUrl: start, include: [], exclude: [], maxPages: PAGES + 10, allowPrivateNetwork: true, userAgent: USER_AGENT, maxPageBytes: 10 * 1024 * 1024, pageTimeoutMs: 30_000 },
      known,
      { fetch: fetchPage },
      (event) => void events.push(event),
    );
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - wall) / 1000;
    const count = (kind: CrawlEvent['kind']) => events.filter((event) => event.kind === kind).length;
    return {
      events,
      report: {
        pagesPushed: count('page'),
        unchanged: count('unchanged'),
        skipped: count('skipped'),
        requests: result.requests,
        bytesReceived: result.bytes,
        cpuSeconds: Number(((used.user + used.system) / 1e6).toFixed(2)),
        wallSeconds: Number(seconds.toFixed(2)),
        pagesPerSecond: Number(((count('page') + count('unchanged')) / seconds).toFixed(1)),
      },
    };
  }

  const full = await run(new Map());
  const known = new Map<string, KnownPage>();
  for (const event of full.events) if (event.kind === 'page') known.set(event.url, { etag: event.etag, lastModified: event.lastModified, hash: event.hash, links: event.links });
  const resync = await run(known);
  const crawlOnly = {
    full: full.report,
    resync: resync.report,
    resyncCpuShare: Number((resync.report.cpuSeconds / full.report.cpuSeconds).toFixed(3)),
    resyncBytesShare: Number((resync.report.bytesReceived / full.report.bytesReceived).toFixed(4)),
  };
  let appliance;
  try {
    appliance = await measureAppliance(start);
  } finally {
    child.kill();
  }
  console.log(JSON.stringify({ pages: PAGES, loadAverage: loadAverage(), crawlOnly, appliance }, null, 2));
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

type Counts = { jobs: number; jobsSucceeded: number; chunksEmbedded: number };

/** What the server has recorded for the knowledge base: jobs created, and the usage counters its pipeline keeps. */
function countsOf(db: Database.Database, knowledgeBaseId: string): Counts {
  const jobs = (db.prepare('SELECT count(*) AS n FROM jobs WHERE knowledge_base_id = ?').get(knowledgeBaseId) as { n: number }).n;
  const usage = new Map(
    (db.prepare('SELECT metric, sum(value) AS n FROM usage_counts WHERE knowledge_base_id = ? GROUP BY metric').all(knowledgeBaseId) as Array<{ metric: string; n: number }>).map(
      (row) => [row.metric, row.n],
    ),
  );
  return { jobs, jobsSucceeded: usage.get('jobs_succeeded') ?? 0, chunksEmbedded: usage.get('chunks_embedded') ?? 0 };
}

type Sync = { id: string; state: string; added: number; updated: number; unchanged: number; removed: number; skipped: Array<{ url: string; reason: string }>; requests: number; bytes: number; error: string | null };

/**
 * One sync on the served appliance, from its start until every page it pushed is indexed: the
 * sync's own figures, and CPU seconds of the server's process tree and wall time at the crawl's
 * end and once indexed.
 */
async function timedSync(server: ServerChild, owner: Owner, db: Database.Database, knowledgeBaseId: string, begin: () => Promise<{ sourceId: string; syncId: string }>) {
  const pid = server.child.pid!;
  const before = countsOf(db, knowledgeBaseId);
  const cpu0 = treeCpuSeconds(pid);
  const t0 = performance.now();
  const { sourceId, syncId } = await begin();
  let sync: Sync;
  for (;;) {
    sync = (await (await adminCall(server, owner, 'GET', `/sources/${sourceId}/syncs/${syncId}`)).json()) as Sync;
    if (sync.state !== 'running') break;
    await sleep(POLL_MS);
  }
  if (sync.state !== 'succeeded') throw new Error(`the sync ${sync.state}: ${sync.error}`);
  const crawlSeconds = (performance.now() - t0) / 1000;
  const crawlCpu = treeCpuSeconds(pid) - cpu0;
  for (;;) {
    const { data } = await call(server, 'GET', '/knowledge-bases');
    const kb = data.find((k: { id: string }) => k.id === knowledgeBaseId);
    if (kb && kb.pendingJobs === 0) break;
    await sleep(POLL_MS);
  }
  const indexedSeconds = (performance.now() - t0) / 1000;
  const cpuSeconds = treeCpuSeconds(pid) - cpu0;
  const after = countsOf(db, knowledgeBaseId);
  const pages = sync.added + sync.updated + sync.unchanged;
  const { data } = await call(server, 'GET', '/knowledge-bases');
  return {
    added: sync.added,
    updated: sync.updated,
    unchanged: sync.unchanged,
    removed: sync.removed,
    skipped: sync.skipped,
    requests: sync.requests,
    bytesReceived: sync.bytes,
    jobsCreated: after.jobs - before.jobs,
    jobsSucceeded: after.jobsSucceeded - before.jobsSucceeded,
    chunksEmbedded: after.chunksEmbedded - before.chunksEmbedded,
    chunksInKnowledgeBase: data.find((k: { id: string }) => k.id === knowledgeBaseId)?.chunkCount ?? 0,
    cpuSecondsUntilCrawled: Number(crawlCpu.toFixed(2)),
    cpuSecondsUntilIndexed: Number(cpuSeconds.toFixed(2)),
    wallSecondsUntilCrawled: Number(crawlSeconds.toFixed(2)),
    wallSecondsUntilIndexed: Number(indexedSeconds.toFixed(2)),
    pagesPerSecondCrawledAndExtracted: Number((pages / crawlSeconds).toFixed(1)),
    pagesPerSecondIndexed: Number((pages / indexedSeconds).toFixed(1)),
  };
}

/** The same site as a website source of a real `localiq serve`: a full sync, then an unchanged one. */
async function measureAppliance(startUrl: string) {
  const dataDir = tempDir();
  const server = await startServerChild(dataDir);
  try {
    const owner = await signInOwner(server);
    const db = new Database(path.join(dataDir, DB_FILE_NAME), { readonly: true, fileMustExist: true });
    const kb = 'site';
    // The server's own idle cost (timers, this bench's polling) over a few seconds, to read the re-sync's figure against.
    const idleCpu0 = treeCpuSeconds(server.child.pid!);
    const idleT0 = performance.now();
    for (let i = 0; i < 5000 / POLL_MS; i++) {
      await call(server, 'GET', '/knowledge-bases');
      await sleep(POLL_MS);
    }
    const idleCpuPerSecond = (treeCpuSeconds(server.child.pid!) - idleCpu0) / ((performance.now() - idleT0) / 1000);
    let sourceId = '';
    const full = await timedSync(server, owner, db, kb, async () => {
      const created = await adminCall(server, owner, 'POST', '/sources', { startUrl, knowledgeBaseId: kb, maxPages: PAGES + 10, allowPrivateNetwork: true });
      if (created.status !== 201) throw new Error(`adding the source answered ${created.status}: ${await created.text()}`);
      const source = (await created.json()) as { id: string; lastSync: { id: string } };
      sourceId = source.id;
      return { sourceId, syncId: source.lastSync.id };
    });
    const resync = await timedSync(server, owner, db, kb, async () => {
      const started = await adminCall(server, owner, 'POST', `/sources/${sourceId}/sync`);
      if (started.status !== 202) throw new Error(`the sync answered ${started.status}: ${await started.text()}`);
      return { sourceId, syncId: ((await started.json()) as { id: string }).id };
    });
    db.close();
    return {
      idleCpuSecondsPerSecond: Number(idleCpuPerSecond.toFixed(3)),
      full,
      resync,
      resyncCpuShare: Number((resync.cpuSecondsUntilIndexed / full.cpuSecondsUntilIndexed).toFixed(3)),
      resyncBytesShare: Number((resync.bytesReceived / full.bytesReceived).toFixed(4)),
    };
  } finally {
    await stopServerChild(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
