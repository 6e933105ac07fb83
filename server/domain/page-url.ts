/**
 * A page's address as LocalIQ compares it with an item's `data.url`: scheme and host in lower
 * case (the URL parser does that), default port dropped, the query and the fragment left out
 * (tracking parameters, anchors), and a trailing slash not counted. Null for anything but http(s).
 */
export function pageKey(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.protocol}//${parsed.host}${path}`;
}
