import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A small shop's website on loopback, built like a CMS theme builds one: every page shares a
 * header with navigation, a cookie banner and a footer; robots.txt keeps crawlers out of the
 * account pages and names a sitemap index whose page sitemap is gzipped; one page is noindex
 * (meta), one noindex by header, one reachable only by a link, one redirected, one a copy with a
 * canonical address, and a PDF catalogue. Pages can be changed, removed and added between syncs;
 * every request is logged.
 */
export const BOILERPLATE = ['We use cookies', 'Accept all cookies', 'Free delivery over', 'Corner Candle Co., 12 High Street', 'Follow us on'];

export type ShopSite = {
  url: string;
  /** Path → main content (title and paragraphs); change it between syncs. */
  pages: Map<string, { title: string; body: string }>;
  /** Paths in the page sitemap. */
  sitemap: Set<string>;
  requests: string[];
  close(): Promise<void>;
};

const paragraph = (text: string) => `<p>${text}</p>`;

function layout(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} – Corner Candle Co.</title>${head}
<link rel="stylesheet" href="/theme.css"><script>window.dataLayer=[];</script></head>
<body class="page-template-default">
<div id="cookie-notice" class="cookie-banner"><p>We use cookies to make this site work and to measure visits.</p><button>Accept all cookies</button></div>
<div class="announcement-bar">Free delivery over £40</div>
<header id="masthead" class="site-header"><a class="logo" href="/">Corner Candle Co.</a>
<nav class="main-navigation"><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li><li><a href="/products/lavender-candle">Candles</a></li><li><a href="/returns">Returns</a></li><li><a href="/account/orders">My account</a></li><li><a href="/old-shipping">Shipping</a></li></ul></nav></header>
<main id="primary" class="site-main"><article class="page"><header class="entry-header"><h1 class="entry-title">${title}</h1></header><div class="entry-content">${body}</div></article></main>
<footer id="colophon" class="site-footer"><p>Corner Candle Co., 12 High Street, Bath</p><p>Follow us on Instagram</p><a href="/privacy">Privacy</a></footer>
</body></html>`;
}

export function initialPages(): Map<string, { title: string; body: string }> {
  return new Map([
    ['/', { title: 'Hand-poured candles from Bath', body: paragraph('We pour soy wax candles by hand in our Bath workshop, in small batches, with cotton wicks and essential oils.') + paragraph('Browse our <a href="/products/lavender-candle">lavender candle</a>, read <a href="/about">our story</a> or the <a href="/catalogue.pdf">printed catalogue</a>.') }],
    ['/about', { title: 'Our story', body: paragraph('Ann started pouring candles in her kitchen in 2015 and opened the workshop on High Street in 2018.') + paragraph('Questions? Read the <a href="/faq">frequently asked questions</a>.') }],
    ['/faq', { title: 'Frequently asked questions', body: '<h2>How long does a candle burn?</h2>' + paragraph('Our 200 g candles burn for about 45 hours; trim the wick to 5 mm before each use.') + '<h2>Are the candles vegan?</h2>' + paragraph('Yes: soy wax and plant oils only, no beeswax and no animal testing.') }],
    ['/returns', { title: 'Returns and refunds', body: '<h2>Returning an order</h2>' + paragraph('Unused candles can be returned within 30 days of delivery for a full refund.') + '<h2>Damaged goods</h2>' + paragraph('If a candle arrives broken, send us a photo within 7 days and we send a new one free of charge.') }],
    ['/shipping', { title: 'Shipping', body: paragraph('Orders placed before 2 pm ship the same working day with Royal Mail; delivery takes one to three days.') }],
    ['/products/lavender-candle', { title: 'Lavender candle', body: paragraph('A calming lavender and bergamot candle in a 200 g amber glass jar, £18.') + paragraph('See also the <a href="/products/fig-candle">fig candle</a>.') }],
    ['/products/fig-candle', { title: 'Fig candle', body: paragraph('A warm fig and cedar candle in a 200 g clear glass jar, £20.') }],
    ['/draft-sale', { title: 'Winter sale (draft)', body: paragraph('Everything at half price from December.') }],
    ['/contact', { title: 'Contact', body: paragraph('Write to hello@cornercandle.example.') }],
  ]);
}

export async function startShopSite(pdf: Buffer): Promise<ShopSite> {
  const pages = initialPages();
  const sitemap = new Set(['/', '/about', '/returns', '/shipping', '/products/lavender-candle', '/products/fig-candle', '/draft-sale', '/contact', '/returns?utm_source=mail']);
  const requests: string[] = [];
  let base = '';
  const send = (request: http.IncomingMessage, response: http.ServerResponse, status: number, type: string, body: Buffer | string, headers: Record<string, string> = {}) => {
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
    const etag = `"${createHash('sha1').update(bytes).digest('hex')}"`;
    if (status === 200 && request.headers['if-none-match'] === etag) return void response.writeHead(304, { etag }).end();
    response.writeHead(status, { 'content-type': type, etag, ...headers }).end(bytes);
  };
  const server = http.createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const { pathname } = new URL(path, 'http://x');
    if (path === '/robots.txt') {
      return send(request, response, 200, 'text/plain', `User-agent: *\nDisallow: /account/\nDisallow: /search\n\nUser-agent: BadBot\nDisallow: /\n\nSitemap: ${base}/sitemap_index.xml\n`);
    }
    if (path === '/sitemap_index.xml') {
      return send(request, response, 200, 'application/xml', `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/page-sitemap.xml.gz</loc></sitemap></sitemapindex>`);
    }
    if (path === '/page-sitemap.xml.gz') {
      const urls = [...sitemap].map((p) => `<url><loc>${base}${p.replace(/&/g, '&amp;')}</loc><lastmod>2024-05-01</lastmod></url>`).join('');
      return send(request, response, 200, 'application/gzip', gzipSync(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`));
    }
    if (path === '/catalogue.pdf') return send(request, response, 200, 'application/pdf', pdf);
    if (path === '/old-shipping') return void response.writeHead(301, { location: '/shipping' }).end();
    const page = pages.get(pathname);
    if (!page) return send(request, response, 404, 'text/html', layout('Not found', paragraph('This page does not exist.')));
    const head =
      (pathname === '/draft-sale' ? '<meta name="robots" content="noindex, follow">' : '') + `<link rel="canonical" href="${base}${pathname}">`;
    send(request, response, 200, 'text/html; charset=utf-8', layout(page.title, page.body, head), pathname === '/contact' ? { 'x-robots-tag': 'noindex' } : {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    pages,
    sitemap,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
