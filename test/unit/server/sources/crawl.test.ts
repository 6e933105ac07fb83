import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { type CrawlEvent, type CrawlSettings, crawlSite, type Fetch, type KnownPage, xRobots } from '../../../../server/sources/crawl.ts';

type FakeResponse = { status?: number; type?: string; body?: string | Buffer; headers?: Record<string, string> };

const prose = (topic: string) => `${topic} is explained here in enough words for a reader to learn about it properly. `.repeat(5);
const page = (title: string, body: string, head = '') =>
  `<html><head><title>${title}</title>${head}</head><body><nav><a href="/">Home</a><a href="/about">About</a></nav><main><h1>${title}</h1><p>${prose(title)}</p>${body}</main><footer>Shop footer</footer></body></html>`;

/** A site in memory: the fetch records each request (and how many were under way at once). */
function fakeSite(routes: Record<string, FakeResponse>) {
  const requests: string[] = [];
  let active = 0;
  let most = 0;
  const fetch: Fetch = async (url, options) => {
    requests.push(url);
    active++;
    most = Math.max(most, active);
    await new Promise((resolve) => setImmediate(resolve));
    active--;
    const route = routes[new URL(url).pathname + new URL(url).search];
    const headers: Record<string, string> = { 'content-type': route?.type ?? 'text/html; charset=utf-8', ...route?.headers };
    if (route?.headers?.etag && options.etag === route.headers.etag) return { url, status: 304, headers, body: Buffer.alloc(0), redirects: [] };
    if (!route) return { url, status: 404, headers, body: Buffer.from('not found'), redirects: [] };
    return { url, status: route.status ?? 200, headers, body: Buffer.isBuffer(route.body) ? route.body : Buffer.from(route.body ?? ''), redirects: [] };
  };
  return { fetch, requests, most: () => most };
}

const settings = (overrides: Partial<CrawlSettings> = {}): CrawlSettings => ({
  startUrl: 'https://shop.test/',
  include: [],
  exclude: [],
  maxPages: 100,
  allowPrivateNetwork: false,
  userAgent: 'LocalIQ/test',
  maxPageBytes: 1_000_000,
  pageTimeoutMs: 5000,
  ...overrides,
});

async function crawl(fetch: Fetch, overrides: Partial<CrawlSettings> = {}, known = new Map<string, KnownPage>()) {
  const events: CrawlEvent[] = [];
  const result = await crawlSite(settings(overrides), known, { fetch }, (event) => void events.push(event));
  const of = (kind: CrawlEvent['kind']) => events.filter((event) => event.kind === kind).map((event) => event.url).sort();
  const reasons = Object.fromEntries(events.flatMap((event) => (event.kind === 'skipped' ? [[event.url, event.reason]] : [])));
  return { events, result, pages: of('page'), unchanged: of('unchanged'), gone: of('gone'), reasons };
}

const SITE: Record<string, FakeResponse> = {
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /admin\nAllow: /admin/help\nSitemap: https://shop.test/sitemap-index.xml\n' },
  '/sitemap-index.xml': { type: 'application/xml', body: '<sitemapindex><sitemap><loc>https://shop.test/pages.xml.gz</loc></sitemap></sitemapindex>' },
  '/pages.xml.gz': { type: 'application/gzip', body: gzipSync('<urlset><url><loc>https://shop.test/about</loc><lastmod>2024-01-01</lastmod></url><url><loc>https://shop.test/admin/settings</loc></url><url><loc>https://other.test/x</loc></url></urlset>') },
  // An etag on the home page: a re-crawl's 304 must still find the pages only it links to.
  '/': { body: page('Welcome', '<a href="/hidden-by-link">Our story</a> <a href="/admin/help">Help</a> <a href="/draft">Draft</a> <a href="/returns?ref=home">Returns</a> <a href="/catalogue.pdf">Catalogue</a> <a href="https://other.test/">Partner</a>'), headers: { etag: '"home-1"' } },
  '/about': { body: page('About', ''), headers: { etag: '"about-1"' } },
  '/hidden-by-link': { body: page('Story', '') },
  '/admin/help': { body: page('Admin help', '') },
  '/admin/settings': { body: page('Settings', '') },
  '/draft': { body: page('Draft', '<a href="/only-from-draft">more</a>', '<meta name="robots" content="noindex">') },
  '/only-from-draft': { body: page('Reached through a noindex page', ''), headers: { 'x-robots-tag': 'googlebot: noindex' } },
  '/returns?ref=home': { body: page('Returns copy', '', '<link rel="canonical" href="https://shop.test/returns">') },
  '/returns': { body: page('Returns', '', '<link rel="canonical" href="/returns">') },
  '/catalogue.pdf': { type: 'application/pdf', body: '%PDF-1.4 fake' },
};

describe('crawlSite', () => {
  it('indexes every public page once and never requests what robots.txt disallows', async () => {
    const site = fakeSite(SITE);
    const { pages, reasons, result } = await crawl(site.fetch);
    assert.deepEqual(pages, ['https://shop.test/', 'https://shop.test/about', 'https://shop.test/admin/help', 'https://shop.test/catalogue.pdf', 'https://shop.test/hidden-by-link', 'https://shop.test/only-from-draft', 'https://shop.test/returns'].sort());
    assert.ok(!site.requests.some((url) => url.includes('/admin/settings')), 'a disallowed address is never requested');
    assert.equal(reasons['https://shop.test/admin/settings'], 'disallowed by robots.txt');
    assert.equal(reasons['https://shop.test/draft'], 'noindex (robots meta tag)');
    assert.match(reasons['https://shop.test/returns?ref=home'] ?? '', /a copy of https:\/\/shop.test\/returns/);
    assert.ok(!site.requests.some((url) => url.startsWith('https://other.test')), 'another host is not crawled');
    assert.equal(new Set(site.requests).size, site.requests.length, 'no address is requested twice');
    assert.ok(result.seen.has('https://shop.test/about'));
    assert.ok(site.most() <= 2, `at most two requests at a time (saw ${site.most()})`);
  });

  it('keeps the main content: the navigation and footer are not in the pages', async () => {
    const { events } = await crawl(fakeSite(SITE).fetch);
    const about = events.find((event) => event.kind === 'page' && event.url === 'https://shop.test/about');
    assert.ok(about && about.kind === 'page');
    const html = about.body.toString();
    assert.match(html, /About is explained/);
    assert.doesNotMatch(html, /Shop footer|Home/);
  });

  it('asks again with the validators kept and reports unchanged pages without re-reading them', async () => {
    const first = await crawl(fakeSite(SITE).fetch);
    const known = new Map<string, KnownPage>();
    for (const event of first.events) if (event.kind === 'page') known.set(event.url, { etag: event.etag, lastModified: event.lastModified, hash: event.hash, links: event.links });
    const second = await crawl(fakeSite(SITE).fetch, {}, known);
    assert.deepEqual(second.pages, []);
    assert.deepEqual(second.unchanged, first.pages);
  });

  it('reports a page that answers 404 or 410 as gone', async () => {
    const known = new Map<string, KnownPage>([['https://shop.test/about', { etag: null, lastModified: null, hash: 'x', links: [] }]]);
    const { gone } = await crawl(fakeSite({ ...SITE, '/about': { status: 410, body: 'gone' } }).fetch, {}, known);
    assert.deepEqual(gone, ['https://shop.test/about']);
  });

  it('obeys X-Robots-Tag for all crawlers or LocalIQ, not for another crawler', () => {
    assert.deepEqual(xRobots('noindex'), { noindex: true, nofollow: false });
    assert.deepEqual(xRobots('LocalIQ: none'), { noindex: true, nofollow: true });
    assert.deepEqual(xRobots('googlebot: noindex, nofollow'), { noindex: false, nofollow: false });
    assert.deepEqual(xRobots('googlebot: noindex, localiq: nofollow'), { noindex: false, nofollow: true });
    assert.deepEqual(xRobots('unavailable_after: 2030-01-01, noindex'), { noindex: true, nofollow: false });
  });

  it('stops at the page limit and says what it left', async () => {
    const { pages, reasons, result } = await crawl(fakeSite(SITE).fetch, { maxPages: 2 });
    assert.equal(pages.length, 2);
    assert.equal(result.limited, true);
    assert.ok(Object.values(reasons).some((reason) => reason === 'beyond the page limit (2)'));
  });

  it('applies include and exclude patterns', async () => {
    const site = fakeSite(SITE);
    const { pages } = await crawl(site.fetch, { exclude: ['/*.pdf', '/hidden-*'] });
    assert.ok(!pages.includes('https://shop.test/catalogue.pdf'));
    assert.ok(!site.requests.includes('https://shop.test/hidden-by-link'));
  });

  it('crawls nothing when robots.txt cannot be read (a server error)', async () => {
    const site = fakeSite({ ...SITE, '/robots.txt': { status: 503, body: '' } });
    const { pages } = await crawl(site.fetch);
    assert.deepEqual(pages, []);
    assert.deepEqual(site.requests, ['https://shop.test/robots.txt']);
  });

  it('crawls everything when there is no robots.txt (404)', async () => {
    const routes = { ...SITE };
    delete routes['/robots.txt'];
    const { pages } = await crawl(fakeSite(routes).fetch);
    assert.ok(pages.includes('https://shop.test/admin/help'));
  });

  it('refuses sitemap indexes nested deeper than two and reads at most 50 sitemaps', async () => {
    const routes: Record<string, FakeResponse> = {
      '/robots.txt': { type: 'text/plain', body: 'Sitemap: https://shop.test/i0.xml\n' },
      '/': { body: page('Home', '') },
    };
    for (let depth = 0; depth < 5; depth++) {
      routes[`/i${depth}.xml`] = { body: `<sitemapindex><sitemap><loc>https://shop.test/i${depth + 1}.xml</loc></sitemap></sitemapindex>` };
    }
    const deep = fakeSite(routes);
    const { reasons } = await crawl(deep.fetch);
    assert.equal(reasons['https://shop.test/i2.xml'], 'sitemap indexes nested deeper than 2');
    assert.ok(!deep.requests.includes('https://shop.test/i3.xml'));
    const wide: Record<string, FakeResponse> = {
      '/robots.txt': { type: 'text/plain', body: 'Sitemap: https://shop.test/wide.xml\n' },
      '/wide.xml': { body: `<sitemapindex>${Array.from({ length: 500 }, (_, i) => `<sitemap><loc>https://shop.test/s${i}.xml</loc></sitemap>`).join('')}</sitemapindex>` },
      '/': { body: page('Home', '') },
    };
    const site = fakeSite(wide);
    await crawl(site.fetch);
    assert.equal(site.requests.filter((url) => /\/s\d+\.xml$/.test(url)).length, 49);
  });

  it('reports a gzip bomb sitemap and goes on with the pages', async () => {
    const routes: Record<string, FakeResponse> = {
      '/robots.txt': { type: 'text/plain', body: 'Sitemap: https://shop.test/bomb.xml.gz\n' },
      '/bomb.xml.gz': { body: gzipSync(Buffer.alloc(60 * 1024 * 1024, 0x20)) },
      '/': { body: page('Home', '') },
    };
    const { pages, reasons } = await crawl(fakeSite(routes).fetch);
    assert.match(reasons['https://shop.test/bomb.xml.gz'] ?? '', /decompresses to more than/);
    assert.deepEqual(pages, ['https://shop.test/']);
  });

  it('queues the target of a redirect to another host that the source includes, and skips one it does not', async () => {
    const fetch: Fetch = async (url, options) => {
      const path = new URL(url).pathname;
      if (path === '/robots.txt') return { url, status: 404, headers: {}, body: Buffer.alloc(0), redirects: [] };
      if (url === 'https://shop.test/') {
        const why = options.checkRedirect?.('https://docs.shop.test/start');
        throw Object.assign(new (await import('../../../../server/sources/fetch-page.ts')).FetchRefused(`redirected to https://docs.shop.test/start: ${why}`));
      }
      return { url, status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from(page('Docs', '')), redirects: [] };
    };
    const included = await crawl(fetch, { include: ['/**', 'https://docs.shop.test/**'] });
    assert.ok(included.pages.includes('https://docs.shop.test/start'));
    assert.ok(included.pages.every((url) => url.startsWith('https://docs.shop.test/')));
    const alone = await crawl(fetch);
    assert.deepEqual(alone.pages, []);
  });
});
