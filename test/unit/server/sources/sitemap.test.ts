import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { parseSitemap, SitemapError, sitemapText } from '../../../../server/sources/sitemap.ts';

const urlset = (urls: string) => `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`;

describe('sitemaps', () => {
  it('reads a urlset with lastmod, entities decoded', () => {
    const sitemap = parseSitemap(urlset('<url><loc> https://s.test/a?x=1&amp;y=2 </loc><lastmod>2024-05-01</lastmod></url><url><loc>https://s.test/b</loc><lastmod>yesterday</lastmod></url>'));
    assert.deepEqual(sitemap, { kind: 'urlset', urls: [{ url: 'https://s.test/a?x=1&y=2', lastmod: Date.UTC(2024, 4, 1) }, { url: 'https://s.test/b', lastmod: null }] });
  });
  it('reads a sitemap index (with a namespace prefix)', () => {
    const sitemap = parseSitemap('<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>https://s.test/s1.xml.gz</sm:loc><sm:lastmod>2024-05-01T10:00:00+02:00</sm:lastmod></sm:sitemap></sm:sitemapindex>');
    assert.deepEqual(sitemap, { kind: 'index', sitemaps: [{ url: 'https://s.test/s1.xml.gz', lastmod: Date.UTC(2024, 4, 1, 8) }] });
  });
  it('refuses what is not a sitemap', () => {
    assert.throws(() => parseSitemap('<html><body>Not found</body></html>'), SitemapError);
  });
  it('never expands a DTD entity (billion laughs)', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>${urlset('<url><loc>https://s.test/&lol2;</loc></url>')}`;
    const sitemap = parseSitemap(xml);
    assert.equal(sitemap.kind, 'urlset');
    assert.ok(sitemap.kind === 'urlset' && sitemap.urls[0]!.url.length < 40);
  });
  it('keeps at most the protocol’s count of addresses', () => {
    const sitemap = parseSitemap(urlset('<url><loc>https://s.test/x</loc></url>'.repeat(20)), 5);
    assert.equal(sitemap.kind === 'urlset' && sitemap.urls.length, 5);
  });
  it('decompresses gzip by its magic bytes', () => {
    const xml = urlset('<url><loc>https://s.test/a</loc></url>');
    assert.equal(sitemapText(gzipSync(xml)), xml);
    assert.equal(sitemapText(Buffer.from(xml)), xml);
  });
  it('refuses a gzip bomb without decompressing it all', () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    assert.ok(bomb.length < 100_000);
    assert.throws(() => sitemapText(bomb, 1024 * 1024), /decompresses to more than 1048576 bytes/);
  });
  it('refuses broken gzip and an oversized plain sitemap', () => {
    assert.throws(() => sitemapText(Buffer.from([0x1f, 0x8b, 1, 2, 3])), /not valid gzip/);
    assert.throws(() => sitemapText(Buffer.alloc(2000, 0x20), 1000), /larger than 1000 bytes/);
  });
});
