/**
 * robots.txt as RFC 9309 reads it: the group naming LocalIQ's product token, else the `*` group;
 * the longest matching Allow or Disallow rule wins, Allow on a tie; `*` and `$` in paths;
 * `Crawl-delay` from the same group; `Sitemap` lines wherever they are.
 */
const ROBOTS_PRODUCT_TOKEN = 'localiq';

/** Bytes of robots.txt read: the RFC asks crawlers to parse at least 500 KiB. */
export const ROBOTS_MAX_BYTES = 512 * 1024;

/** A crawl delay beyond this is held to it, so one line cannot stall a sync for days. */
export const MAX_CRAWL_DELAY_SECONDS = 60;

type Rule = { allow: boolean; pattern: string; matcher: RegExp };
type Group = { agents: string[]; rules: Rule[]; crawlDelay: number | null };

export type Robots = {
  /** Whether the path (with its query) may be fetched. */
  allows(pathAndQuery: string): boolean;
  /** Seconds between two requests the site asks for, or null. */
  crawlDelay: number | null;
  sitemaps: string[];
};

/** Everything allowed: robots.txt missing (4xx) or empty. */
export const ALLOW_ALL: Robots = { allows: () => true, crawlDelay: null, sitemaps: [] };
/** Nothing allowed: robots.txt unreachable (5xx, network failure), which the RFC treats as a full disallow. */
export const DISALLOW_ALL: Robots = { allows: () => false, crawlDelay: null, sitemaps: [] };

export function parseRobots(text: string, productToken = ROBOTS_PRODUCT_TOKEN): Robots {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | null = null;
  let lastWasAgent = false;
  const lines = text.slice(0, ROBOTS_MAX_BYTES).split(/\r\n|\r|\n/);
  // A file cut at the bound loses its last, partial line: `Disallow: /private` cut to `Disallow: /` would shut the whole site.
  if (text.length > ROBOTS_MAX_BYTES) lines.pop();
  for (const rawLine of lines) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [], crawlDelay: null };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    if (key === 'sitemap') {
      if (value) sitemaps.push(value);
      continue;
    }
    lastWasAgent = false;
    if (!current) continue;
    if (key === 'allow' || key === 'disallow') {
      // An empty Disallow allows everything: it is no rule at all.
      if (value === '') continue;
      current.rules.push({ allow: key === 'allow', pattern: value, matcher: patternMatcher(value) });
    } else if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelay = Math.min(seconds, MAX_CRAWL_DELAY_SECONDS);
    }
  }
  const token = productToken.toLowerCase();
  const own = groups.filter((group) => group.agents.some((agent) => agent !== '*' && agent.split('/')[0]!.trim() === token));
  const chosen = own.length > 0 ? own : groups.filter((group) => group.agents.includes('*'));
  // Several groups for the same agent are merged (RFC 9309 §2.2.1).
  const rules = chosen.flatMap((group) => group.rules);
  const delays = chosen.map((group) => group.crawlDelay).filter((delay): delay is number => delay !== null);
  return {
    allows: (pathAndQuery) => isAllowed(rules, pathAndQuery),
    crawlDelay: delays.length > 0 ? Math.max(...delays) : null,
    sitemaps,
  };
}

function isAllowed(rules: Rule[], pathAndQuery: string): boolean {
  const target = normalizeEscapes(pathAndQuery || '/');
  if (target === '/robots.txt') return true;
  let best: Rule | null = null;
  for (const rule of rules) {
    if (!rule.matcher.test(target)) continue;
    const longer = !best || rule.pattern.length > best.pattern.length;
    const tieAllow = best && rule.pattern.length === best.pattern.length && rule.allow && !best.allow;
    if (longer || tieAllow) best = rule;
  }
  return best ? best.allow : true;
}

/** A rule's path pattern as a regular expression anchored at the start: `*` any characters, a final `$` the end. */
function patternMatcher(pattern: string): RegExp {
  const anchored = pattern.endsWith('$');
  const body = normalizeEscapes(anchored ? pattern.slice(0, -1) : pattern);
  const source = body
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${anchored ? '$' : ''}`);
}

/** Percent-escapes in one case and unreserved characters unescaped, so `/%7Ejoe` and `/~joe` match. */
function normalizeEscapes(path: string): string {
  return path.replace(/%([0-9a-fA-F]{2})/g, (escape, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}
