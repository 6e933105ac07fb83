/**
 * What the desktop window may load, open and ask for. Pure functions of URL strings, so the rules
 * are tested against tables of hostile URLs without Electron; main.ts only wires them to the
 * window's events.
 *
 * The one trusted origin is the local server's own (e.g. http://127.0.0.1:7410): the dashboard is
 * served from there, and nothing else may run inside the window.
 */

export type Decision = 'allow' | 'deny' | 'open-external';

/** Control characters and whitespace: a URL carrying them is hiding something (e.g. "java\tscript:"). */
const SUSPICIOUS_CHARS = /[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200f\u2028-\u202f\u205f\u3000\ufeff]/u;

/** Parses a URL the way Chromium will, refusing anything ambiguous instead of guessing. */
export function parseStrictUrl(raw: unknown): URL | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 8_192) return null;
  if (SUSPICIOUS_CHARS.test(raw)) return null;
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/**
 * Whether the authority part as written carries credentials. Checked on the raw string because
 * the parser drops an empty one ("http://:@127.0.0.1:7410/" comes out without any).
 */
function hasUserinfo(raw: string, url: URL): boolean {
  if (url.username !== '' || url.password !== '') return true;
  const authority = /^[a-z][a-z0-9+.-]*:[/\\]*([^/\\?#]*)/i.exec(raw)?.[1] ?? '';
  return authority.includes('@');
}

/** The origin of the server URL, e.g. "http://127.0.0.1:7410"; throws on anything but http(s). */
export function originOf(serverUrl: string): string {
  const url = parseStrictUrl(serverUrl);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(`Not an http(s) server URL: ${serverUrl}`);
  }
  return url.origin;
}

/** True only for http(s) URLs on exactly the trusted origin, without credentials in them. */
export function isTrustedOrigin(raw: unknown, trustedOrigin: string): boolean {
  const url = parseStrictUrl(raw);
  if (!url) return false;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  // http://127.0.0.1:7410@evil.com has host evil.com; any userinfo at all is a disguise here.
  if (hasUserinfo(raw as string, url)) return false;
  return url.origin === trustedOrigin;
}

/**
 * Hosts that are this machine or its local network: a link to them is never a genuine external
 * link, and handing it to the system browser could reach other local services.
 */
export function isLocalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) return true;
  if (host.includes(':')) {
    // IPv6 (the URL parser has already compressed it): unspecified, loopback, IPv4-mapped,
    // link-local fe80::/10 and unique-local fc00::/7.
    return host === '::' || host === '::1' || host.startsWith('::ffff:') || /^fe[89ab]/.test(host) || /^f[cd]/.test(host);
  }
  // The URL parser has already turned 0x7f.1, 2130706433 and １２７.０.０.１ into 127.0.0.1.
  const octets = host.split('.');
  if (octets.length !== 4 || !octets.every((o) => /^\d{1,3}$/.test(o))) return false;
  const [a, b] = octets.map(Number) as [number, number, number, number];
  return (
    a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)
  );
}

/** A link the system browser may open: plain http(s) to a public host, no credentials. */
export function isSafeExternalUrl(raw: unknown): boolean {
  const url = parseStrictUrl(raw);
  if (!url) return false;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (hasUserinfo(raw as string, url)) return false;
  return url.hostname !== '' && !isLocalHost(url.hostname);
}

/** The normalized form handed to the system browser (never the raw string). */
export function externalHref(raw: string): string {
  const url = parseStrictUrl(raw);
  if (!url || !isSafeExternalUrl(raw)) throw new Error('Not a safe external URL.');
  return url.href;
}

/** In-window navigation (will-navigate, will-redirect, will-frame-navigate). */
export function decideNavigation(raw: unknown, trustedOrigin: string): Decision {
  if (isTrustedOrigin(raw, trustedOrigin)) return 'allow';
  return isSafeExternalUrl(raw) ? 'open-external' : 'deny';
}

/**
 * window.open and target=_blank links: a second dashboard window is allowed (it gets the same
 * hardened preferences), public web links go to the system browser, the rest is refused.
 */
export function decideWindowOpen(raw: unknown, trustedOrigin: string): Decision {
  return decideNavigation(raw, trustedOrigin);
}

/**
 * Permission requests (camera, microphone, geolocation, notifications, …) are all denied. The
 * single exception is writing text to the clipboard from the dashboard itself, which its copy
 * buttons (a new API key is shown once) need.
 */
export function decidePermission(permission: string, requestingUrl: unknown, trustedOrigin: string): 'allow' | 'deny' {
  if (permission === 'clipboard-sanitized-write' && isTrustedOrigin(requestingUrl, trustedOrigin)) return 'allow';
  return 'deny';
}

/**
 * The Content-Security-Policy for every response shown in the window: only the server's own
 * scripts, no inline or eval'd script, no plugins, no framing, no form posts elsewhere. Inline
 * styles stay allowed because the charts set style attributes.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "frame-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** The start-up failure page is a data: URL and may not even load its own scripts. */
export const FAILURE_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/**
 * Response headers with the CSP set for responses from the trusted origin. Any CSP the server sent
 * is replaced, so the window's policy is this one whatever the server says.
 */
export function withContentSecurityPolicy(
  responseUrl: string,
  headers: Record<string, string[]>,
  trustedOrigin: string,
): Record<string, string[]> {
  if (!isTrustedOrigin(responseUrl, trustedOrigin)) return headers;
  const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-security-policy'));
  return { ...kept, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] };
}
