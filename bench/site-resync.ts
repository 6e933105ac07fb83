/**
 * What keeping a website in sync costs: a 1,000-page shop site on loopback (shared layout, a
 * gzipped sitemap, ETags) crawled once in full, then re-synced unchanged, through the same crawl
 * a website source runs (server/sources/crawl.ts, fetchPage). Reports requests, bytes, CPU
 * seconds of this process and wall time for both, pages pushed by the re-sync (goal: none, so
 * none re-embedded) and its CPU against the full sync's (goal ≤ 10 %), and pages/s crawled and
 * extracted in the full sync. The site runs in a child process, so the CPU counted is the crawl's.
 *
 *   node --import tsx bench/site-resync.ts [--pages 1000]
 */
import { createHash } from 'node:crypto';
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type CrawlEvent, crawlSite, type KnownPage } from '../server/sources/crawl.ts';
import { fetchPage } from '../server/sources/fetch-page.ts';
import { USER_AGENT } from '../server/sources/sync.ts';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '1000' }, serve: { type: 'boolean' } } });
const PAGES = Number(values.pages);

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
  child.kill();
  console.log(
    JSON.stringify(
      {
        pages: PAGES,
        full: full.report,
        resync: resync.report,
        resyncCpuShare: Number((resync.report.cpuSeconds / full.report.cpuSeconds).toFixed(3)),
        resyncBytesShare: Number((resync.report.bytesReceived / full.report.bytesReceived).toFixed(4)),
      },
      null,
      2,
    ),
  );
}
