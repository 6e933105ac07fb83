/**
 * Whether a browser's `Origin` header names one of a widget's allowed origins. Pure, so the
 * rule is tested on a table of hostile inputs (test/unit/server/domain/allowed-origins.test.ts).
 *
 * - Scheme, host and port must all match; a default port (80 for http, 443 for https) is the
 *   same as none, and letter case in scheme and host does not matter.
 * - `https://*.example.com` matches every subdomain of example.com, at any depth, with that
 *   scheme and port, but not example.com itself.
 * - `null` (sandboxed frames, file: pages, some redirects) and a missing header never match, nor
 *   does anything that is not a bare origin (a path, credentials, another scheme).
 */

type ParsedOrigin = { scheme: 'http' | 'https'; host: string; port: number };

const DEFAULT_PORTS = { http: 80, https: 443 } as const;
const ORIGIN = /^(https?):\/\/(\[[0-9a-f:.]+\]|[^/:@?#\s[\]\\]+)(?::(\d{1,5}))?$/i;

function parseOrigin(value: string): ParsedOrigin | null {
  const match = ORIGIN.exec(value);
  if (!match) return null;
  const scheme = match[1]!.toLowerCase() as ParsedOrigin['scheme'];
  const port = match[3] === undefined ? DEFAULT_PORTS[scheme] : Number(match[3]);
  if (port < 1 || port > 65_535) return null;
  return { scheme, host: match[2]!.toLowerCase(), port };
}

/** An origin in one canonical spelling (lower case, no default port), or null for anything else. */
export function canonicalOrigin(value: string | null | undefined): string | null {
  if (!value) return null;
  const origin = parseOrigin(value);
  if (!origin) return null;
  return `${origin.scheme}://${origin.host}${origin.port === DEFAULT_PORTS[origin.scheme] ? '' : `:${origin.port}`}`;
}

function matches(origin: ParsedOrigin, allowed: string): boolean {
  const wildcard = allowed.match(/^(https?:\/\/)\*\.(.*)$/i);
  const pattern = parseOrigin(wildcard ? `${wildcard[1]}${wildcard[2]}` : allowed);
  if (!pattern || pattern.scheme !== origin.scheme || pattern.port !== origin.port) return false;
  if (!wildcard) return pattern.host === origin.host;
  return origin.host.endsWith(`.${pattern.host}`) && !origin.host.startsWith('.') && !origin.host.includes('..');
}

export function originAllowed(origin: string | null | undefined, allowedOrigins: readonly string[]): boolean {
  if (!origin) return false;
  const parsed = parseOrigin(origin);
  return parsed !== null && allowedOrigins.some((allowed) => matches(parsed, allowed));
}
