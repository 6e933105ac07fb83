import { createHash } from 'node:crypto';
import { type FetchedResponse, type FetchOptions, FetchRefused } from './fetch-page.ts';
import { type Clock, HostLimiter, REQUESTS_PER_HOST, systemClock } from './host-limiter.ts';
import { extractMainContent, type PageContent, UnreadablePage } from './main-content.ts';
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, type Robots, ROBOTS_MAX_BYTES } from './robots.ts';
import { parseSitemap, SITEMAP_MAX_BYTES, SITEMAP_MAX_DEPTH, SitemapError, sitemapText } from './sitemap.ts';
import { normalizeUrl, outOfScopeReason, type UrlScope } from './url-rules.ts';

/** What a website source asks of a crawl. */
export type CrawlSettings = {
  startUrl: string;
  include: string[];
  exclude: string[];
  maxPages: number;
  allowPrivateNetwork: boolean;
  userAgent: string;
  /** Bytes of one page or linked file. */
  maxPageBytes: number;
  /** Milliseconds for one page, redirects and body included. */
  pageTimeoutMs: number;
};

export const CRAWL_DEFAULTS = {
  maxPages: 500,
  maxPageBytes: 10 * 1024 * 1024,
  pageTimeoutMs: 30_000,
  maxRedirects: 5,
  /** Sitemaps read in one crawl (indexes included): a sitemap index of thousands is a bomb. */
  maxSitemaps: 50,
} as const;

/** What the last sync kept of a page, for a conditional request and a change check. */
export type KnownPage = { etag: string | null; lastModified: string | null; hash: string; links: string[] };

export type DocumentKind = 'pdf' | 'docx';

export type CrawlEvent =
  | {
      kind: 'page';
      url: string;
      title: string | null;
      /** The main content as an HTML document, or a linked file's bytes. */
      body: Buffer;
      fileKind: 'html' | DocumentKind;
      hash: string;
      etag: string | null;
      lastModified: string | null;
      /** The in-scope addresses it links to, kept for a later 304. */
      links: string[];
    }
  /** The copy kept is still right (304, or the same text). */
  | { kind: 'unchanged'; url: string; etag: string | null; lastModified: string | null; links: string[] }
  /** 404 or 410: the page is gone. */
  | { kind: 'gone'; url: string }
  | { kind: 'skipped'; url: string; reason: string };

export type CrawlResult = {
  /** Every in-scope address found this crawl (sitemaps, links, pages): a known page absent from it may be gone. */
  seen: Set<string>;
  requests: number;
  bytes: number;
  /** True when the page limit stopped the crawl before its queue was empty. */
  limited: boolean;
};

export type Fetch = (url: string, options: FetchOptions) => Promise<FetchedResponse>;

export type CrawlDeps = {
  fetch: Fetch;
  clock?: Clock;
  signal?: AbortSignal;
};

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;
const DOCUMENT_TYPES: Record<string, DocumentKind> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
};

function textHash(title: string | null, text: string): string {
  return createHash('sha256').update(`${title ?? ''}\n${text}`).digest('hex');
}

/**
 * Reads one website: robots.txt first (nothing it disallows is ever requested), then its
 * sitemaps (indexes and gzip, bounded), then pages from the start address, the sitemaps and the
 * links found, at most two at a time (one at a time with a crawl delay), until the page limit.
 * Each page's outcome goes to `onEvent` as it is known.
 */
export async function crawlSite(
  settings: CrawlSettings,
  known: ReadonlyMap<string, KnownPage>,
  deps: CrawlDeps,
  onEvent: (event: CrawlEvent) => void | Promise<void>,
): Promise<CrawlResult> {
  const start = normalizeUrl(settings.startUrl);
  if (!start) throw new Error(`${settings.startUrl} is not an http or https address`);
  const scope: UrlScope = { host: new URL(start).host, include: settings.include, exclude: settings.exclude };
  const limiter = new HostLimiter(deps.clock ?? systemClock);
  const robotsByHost = new Map<string, Robots>();
  const seen = new Set<string>();
  const queued = new Set<string>();
  const done = new Set<string>();
  const queue: string[] = [];
  const result: CrawlResult = { seen, requests: 0, bytes: 0, limited: false };
  let fetched = 0;

  const baseOptions = (): Omit<FetchOptions, 'checkRedirect'> => ({
    userAgent: settings.userAgent,
    allowPrivateNetwork: settings.allowPrivateNetwork,
    maxBytes: settings.maxPageBytes,
    timeoutMs: settings.pageTimeoutMs,
    maxRedirects: CRAWL_DEFAULTS.maxRedirects,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });

  const request = async (url: string, options: FetchOptions, delay: number | null) => {
    const host = new URL(url).host;
    return limiter.run(host, delay, async () => {
      result.requests++;
      const response = await deps.fetch(url, options);
      result.requests += response.redirects.length;
      result.bytes += response.body.length;
      return response;
    });
  };

  const robotsOf = async (origin: URL): Promise<Robots> => {
    const cached = robotsByHost.get(origin.host);
    if (cached) return cached;
    let robots: Robots;
    try {
      const response = await request(
        `${origin.protocol}//${origin.host}/robots.txt`,
        { ...baseOptions(), maxBytes: ROBOTS_MAX_BYTES * 4, accept: 'text/plain', maxRedirects: 5 },
        null,
      );
      if (response.status >= 200 && response.status < 300) robots = parseRobots(response.body.toString('utf8'));
      else if (response.status >= 400 && response.status < 500) robots = ALLOW_ALL;
      else robots = DISALLOW_ALL;
    } catch (error) {
      if (error instanceof FetchRefused && /private or loopback/.test(error.message)) throw error;
      robots = DISALLOW_ALL;
    }
    if (robots === DISALLOW_ALL) await onEvent({ kind: 'skipped', url: `${origin.protocol}//${origin.host}/`, reason: 'robots.txt could not be read, so nothing was crawled' });
    robotsByHost.set(origin.host, robots);
    return robots;
  };

  const enqueue = (address: string, base?: string): void => {
    const url = normalizeUrl(address, base);
    if (!url || outOfScopeReason(url, scope) !== null) return;
    seen.add(url);
    if (queued.has(url)) return;
    queued.add(url);
    queue.push(url);
  };

  const mainRobots = await robotsOf(new URL(start));
  enqueue(start);
  await readSitemaps(start, mainRobots, scope, (url) => enqueue(url), (url, options) => request(url, options, mainRobots.crawlDelay), baseOptions(), onEvent);

  const visit = async (url: string): Promise<void> => {
    const target = new URL(url);
    const robots = await robotsOf(target);
    if (!robots.allows(target.pathname + target.search)) {
      await onEvent({ kind: 'skipped', url, reason: 'disallowed by robots.txt' });
      return;
    }
    const previous = known.get(url);
    let response: FetchedResponse;
    try {
      response = await request(
        url,
        {
          ...baseOptions(),
          etag: previous?.etag ?? null,
          lastModified: previous?.lastModified ?? null,
          checkRedirect: (next) => {
            const nextUrl = new URL(next);
            if (nextUrl.host !== target.host) return 'another host (queued on its own)';
            const hopRobots = robotsByHost.get(nextUrl.host);
            return hopRobots && !hopRobots.allows(nextUrl.pathname + nextUrl.search) ? 'disallowed by robots.txt' : null;
          },
        },
        robots.crawlDelay,
      );
    } catch (error) {
      if (deps.signal?.aborted) throw error;
      const reason = error instanceof FetchRefused ? error.message : `could not be fetched (${(error as Error).message})`;
      const crossHost = /^redirected to (\S+): another host/.exec(reason);
      if (crossHost) enqueue(crossHost[1]!);
      await onEvent({ kind: 'skipped', url, reason });
      return;
    }
    const finalUrl = normalizeUrl(response.url) ?? url;
    if (finalUrl !== url) {
      seen.add(finalUrl);
      if (done.has(finalUrl)) return;
      done.add(finalUrl);
      queued.add(finalUrl);
    }
    const etag = headerOf(response, 'etag');
    const lastModified = headerOf(response, 'last-modified');
    if (response.status === 304 && previous) {
      // Not read again: the links it had are followed as found last time.
      for (const link of previous.links) enqueue(link);
      await onEvent({ kind: 'unchanged', url: finalUrl, etag: etag ?? previous.etag, lastModified: lastModified ?? previous.lastModified, links: previous.links });
      return;
    }
    if (response.status === 404 || response.status === 410) {
      await onEvent({ kind: 'gone', url: finalUrl });
      return;
    }
    if (response.status < 200 || response.status >= 300) {
      await onEvent({ kind: 'skipped', url: finalUrl, reason: `the site answered HTTP ${response.status}` });
      return;
    }
    const tag = xRobots(headerOf(response, 'x-robots-tag'));
    const type = (headerOf(response, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const documentKind = DOCUMENT_TYPES[type] ?? documentKindByName(finalUrl, type);
    if (documentKind) {
      if (tag.noindex) return void (await onEvent({ kind: 'skipped', url: finalUrl, reason: 'noindex (X-Robots-Tag)' }));
      const hash = createHash('sha256').update(response.body).digest('hex');
      if (previous?.hash === hash) return void (await onEvent({ kind: 'unchanged', url: finalUrl, etag, lastModified, links: [] }));
      await onEvent({ kind: 'page', url: finalUrl, title: null, body: response.body, fileKind: documentKind, hash, etag, lastModified, links: [] });
      return;
    }
    if (!HTML_TYPES.test(type)) {
      await onEvent({ kind: 'skipped', url: finalUrl, reason: `not a page LocalIQ reads (${type || 'no content type'})` });
      return;
    }
    let page: PageContent;
    try {
      page = extractMainContent(response.body.toString('utf8'), finalUrl);
    } catch (error) {
      if (!(error instanceof UnreadablePage)) throw error;
      await onEvent({ kind: 'skipped', url: finalUrl, reason: error.message });
      return;
    }
    const followed = page.nofollow || tag.nofollow ? [] : page.links.filter((link) => outOfScopeReason(link, scope) === null);
    for (const link of followed) enqueue(link);
    if (page.noindex || tag.noindex) {
      await onEvent({ kind: 'skipped', url: finalUrl, reason: page.noindex ? 'noindex (robots meta tag)' : 'noindex (X-Robots-Tag)' });
      return;
    }
    if (page.canonical && page.canonical !== finalUrl && outOfScopeReason(page.canonical, scope) === null) {
      enqueue(page.canonical);
      await onEvent({ kind: 'skipped', url: finalUrl, reason: `a copy of ${page.canonical} (its canonical address)` });
      return;
    }
    if (!page.text) {
      await onEvent({ kind: 'skipped', url: finalUrl, reason: 'no text' });
      return;
    }
    const hash = textHash(page.title, page.text);
    if (previous?.hash === hash) {
      await onEvent({ kind: 'unchanged', url: finalUrl, etag, lastModified, links: followed });
      return;
    }
    await onEvent({ kind: 'page', url: finalUrl, title: page.title, body: Buffer.from(page.html), fileKind: 'html', hash, etag, lastModified, links: followed });
  };

  // Pages are read two at a time (the host limiter also holds each host to two); a page's links refill the queue.
  const inFlight = new Set<Promise<void>>();
  while (queue.length > 0 || inFlight.size > 0) {
    while (queue.length > 0 && inFlight.size < REQUESTS_PER_HOST) {
      if (deps.signal?.aborted) throw deps.signal.reason;
      const url = queue.shift()!;
      if (done.has(url)) continue;
      if (fetched >= settings.maxPages) {
        result.limited = true;
        await onEvent({ kind: 'skipped', url, reason: `beyond the page limit (${settings.maxPages})` });
        continue;
      }
      done.add(url);
      fetched++;
      const visiting: Promise<void> = visit(url).finally(() => inFlight.delete(visiting));
      inFlight.add(visiting);
    }
    if (inFlight.size > 0) await Promise.race(inFlight);
  }
  return result;
}

function headerOf(response: FetchedResponse, name: string): string | null {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? null);
}

/** `X-Robots-Tag` directives for all crawlers or for LocalIQ (`localiq: noindex`); another crawler's are not LocalIQ's. */
export function xRobots(header: string | null): { noindex: boolean; nofollow: boolean } {
  const directives: string[] = [];
  // Directives after `agent:` are that agent's until the next agent (Google's reading of the header).
  let forLocaliq = true;
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const match = /^\s*([a-z0-9_-]+)\s*:\s*(.*)$/.exec(part);
    let directive = part.trim();
    if (match && !VALUED_DIRECTIVES.has(match[1]!)) {
      forLocaliq = match[1] === 'localiq';
      directive = match[2]!.trim();
    }
    if (forLocaliq) directives.push(directive);
  }
  return {
    noindex: directives.includes('noindex') || directives.includes('none'),
    nofollow: directives.includes('nofollow') || directives.includes('none'),
  };
}

/** Directives that carry a value after a colon, not to be read as a crawler's name. */
const VALUED_DIRECTIVES = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

function documentKindByName(url: string, type: string): DocumentKind | null {
  if (type && type !== 'application/octet-stream') return null;
  const path = new URL(url).pathname.toLowerCase();
  return path.endsWith('.pdf') ? 'pdf' : path.endsWith('.docx') ? 'docx' : null;
}

/** Reads the sitemaps robots.txt names (else /sitemap.xml) and queues their in-scope addresses. */
async function readSitemaps(
  start: string,
  robots: Robots,
  scope: UrlScope,
  enqueue: (url: string) => void,
  request: (url: string, options: FetchOptions) => Promise<FetchedResponse>,
  options: Omit<FetchOptions, 'checkRedirect'>,
  onEvent: (event: CrawlEvent) => void | Promise<void>,
): Promise<void> {
  const host = new URL(start).host;
  const listed = robots.sitemaps;
  // Sitemaps robots.txt names are the owner's invitation; the usual /sitemap.xml is asked for only where robots.txt allows it.
  if (listed.length === 0 && !robots.allows('/sitemap.xml')) return;
  const pending: Array<{ url: string; depth: number }> = (listed.length > 0 ? listed : [new URL('/sitemap.xml', start).href]).map((url) => ({ url, depth: 0 }));
  const read = new Set<string>();
  while (pending.length > 0) {
    const { url: address, depth } = pending.shift()!;
    const url = normalizeUrl(address, start);
    if (!url || read.has(url)) continue;
    if (new URL(url).host !== host && outOfScopeReason(url, { ...scope, exclude: [] }) !== null) {
      await onEvent({ kind: 'skipped', url, reason: 'a sitemap on another host' });
      continue;
    }
    if (read.size >= CRAWL_DEFAULTS.maxSitemaps) {
      await onEvent({ kind: 'skipped', url, reason: `more than ${CRAWL_DEFAULTS.maxSitemaps} sitemaps` });
      continue;
    }
    read.add(url);
    try {
      const response = await request(url, { ...options, maxBytes: SITEMAP_MAX_BYTES, accept: 'application/xml,text/xml,*/*;q=0.5', checkRedirect: (next) => (new URL(next).host === host ? null : 'another host') });
      if (response.status === 404 && listed.length === 0) continue;
      if (response.status < 200 || response.status >= 300) throw new SitemapError(`the site answered HTTP ${response.status}`);
      const sitemap = parseSitemap(sitemapText(response.body));
      if (sitemap.kind === 'urlset') for (const entry of sitemap.urls) enqueue(entry.url);
      else if (depth + 1 > SITEMAP_MAX_DEPTH) await onEvent({ kind: 'skipped', url, reason: `sitemap indexes nested deeper than ${SITEMAP_MAX_DEPTH}` });
      else for (const entry of sitemap.sitemaps) pending.push({ url: entry.url, depth: depth + 1 });
    } catch (error) {
      if (error instanceof FetchRefused || error instanceof SitemapError) await onEvent({ kind: 'skipped', url, reason: `sitemap: ${error.message}` });
      else throw error;
    }
  }
}
