import { gunzipSync } from 'node:zlib';
import { Parser } from 'htmlparser2';

/** Bytes of one sitemap after decompression: the sitemaps protocol's own limit. */
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** Addresses read from one sitemap: the protocol's limit. */
const SITEMAP_MAX_URLS = 50_000;
/** How deep sitemap indexes may nest (an index of indexes of sitemaps is 2): the protocol allows 1. */
export const SITEMAP_MAX_DEPTH = 2;

export type SitemapEntry = { url: string; lastmod: number | null };
export type Sitemap = { kind: 'index'; sitemaps: SitemapEntry[] } | { kind: 'urlset'; urls: SitemapEntry[] };

export class SitemapError extends Error {
  override readonly name = 'SitemapError';
}

/**
 * A sitemap's text from its bytes: gzip (by its magic bytes, whatever the name or headers say)
 * is decompressed with a bound on the output, so a small bomb fails instead of filling memory.
 */
export function sitemapText(bytes: Buffer, maxBytes = SITEMAP_MAX_BYTES): string {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return gunzipSync(bytes, { maxOutputLength: maxBytes }).toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        throw new SitemapError(`the sitemap decompresses to more than ${maxBytes} bytes`);
      }
      throw new SitemapError('the sitemap is not valid gzip');
    }
  }
  if (bytes.length > maxBytes) throw new SitemapError(`the sitemap is larger than ${maxBytes} bytes`);
  return bytes.toString('utf8');
}

/** A `<sitemapindex>` or a `<urlset>` (any namespace prefix); anything else is an error. */
export function parseSitemap(xml: string, maxUrls = SITEMAP_MAX_URLS): Sitemap {
  let root: 'index' | 'urlset' | null = null;
  const entries: SitemapEntry[] = [];
  let entry: { loc: string; lastmod: string } | null = null;
  let field: 'loc' | 'lastmod' | null = null;
  const local = (name: string) => name.toLowerCase().replace(/^.*:/, '');
  const parser = new Parser(
    {
      onopentag(name) {
        const tag = local(name);
        if (root === null) {
          if (tag === 'sitemapindex') root = 'index';
          else if (tag === 'urlset') root = 'urlset';
          return;
        }
        if ((tag === 'url' && root === 'urlset') || (tag === 'sitemap' && root === 'index')) entry = { loc: '', lastmod: '' };
        else if (entry && (tag === 'loc' || tag === 'lastmod')) field = tag;
      },
      ontext(text) {
        if (entry && field) entry[field] += text;
      },
      onclosetag(name) {
        const tag = local(name);
        if (tag === 'loc' || tag === 'lastmod') field = null;
        else if (entry && (tag === 'url' || tag === 'sitemap')) {
          const url = decodeXml(entry.loc.trim());
          if (url && entries.length < maxUrls) entries.push({ url, lastmod: parseLastmod(entry.lastmod.trim()) });
          entry = null;
        }
      },
    },
    // No entity expansion beyond the five XML ones: htmlparser2 never reads a DTD.
    { xmlMode: true, decodeEntities: false },
  );
  parser.write(xml);
  parser.end();
  if (root === null) throw new SitemapError('not a sitemap (no <urlset> or <sitemapindex>)');
  return root === 'index' ? { kind: 'index', sitemaps: entries } : { kind: 'urlset', urls: entries };
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code) % 0x110000))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(Number.parseInt(code, 16) % 0x110000))
    .replace(/&amp;/g, '&');
}

/** W3C datetime (2024-05-01, 2024-05-01T10:00:00+02:00) in milliseconds, or null. */
function parseLastmod(text: string): number | null {
  if (!/^\d{4}(-\d{2}(-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?)?)?$/.test(text)) return null;
  const time = Date.parse(text);
  return Number.isFinite(time) ? time : null;
}
