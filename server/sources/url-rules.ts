/**
 * Which addresses belong to a website source. An address is normalised (fragment dropped, host in
 * lower case, default port removed) and belongs when it is http(s), on the start address's host
 * (or matched by an include pattern naming another host), matched by an include pattern if there
 * are any, and by no exclude pattern. Patterns starting with `http` match the whole address,
 * others its path and query: `*` is anything but `/`, `**` anything, `?` one character.
 */
export type UrlScope = { host: string; include: string[]; exclude: string[] };

/** The address without its fragment, host in lower case, no default port; null when not http(s). */
export function normalizeUrl(address: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(address, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password) return null;
  url.hash = '';
  return url.href;
}

/** Why the address is outside the source, or null when it belongs. */
export function outOfScopeReason(address: string, scope: UrlScope): string | null {
  const url = new URL(address);
  const pathAndQuery = url.pathname + url.search;
  const matches = (pattern: string) => globMatcher(pattern).test(/^https?:/i.test(pattern) ? url.href : pathAndQuery);
  const included = scope.include.some(matches);
  if (url.host !== scope.host && !(included && scope.include.some((p) => /^https?:/i.test(p) && matches(p)))) return 'another host';
  if (scope.include.length > 0 && !included) return 'not matched by an include pattern';
  if (scope.exclude.some(matches)) return 'matched by an exclude pattern';
  return null;
}

const cache = new Map<string, RegExp>();

export function globMatcher(pattern: string): RegExp {
  let matcher = cache.get(pattern);
  if (!matcher) {
    let source = '';
    for (let i = 0; i < pattern.length; i++) {
      const char = pattern[i]!;
      if (char === '*' && pattern[i + 1] === '*') {
        source += '.*';
        i++;
      } else if (char === '*') source += '[^/]*';
      else if (char === '?') source += '.';
      else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    matcher = new RegExp(`^${source}$`);
    cache.set(pattern, matcher);
  }
  return matcher;
}

/** Checks a pattern given by a person; returns why it cannot be used, or null. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length === 0 || pattern.length > 500) return 'must be 1 to 500 characters';
  if (!pattern.startsWith('/') && !/^https?:\/\//i.test(pattern)) return 'must start with / (a path) or http:// or https:// (a whole address)';
  return null;
}
