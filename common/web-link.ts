/**
 * An address as a link target, or null: http and https only, never `javascript:`, `data:` or a
 * relative path. The server checks what it sends visitors (citations, the product card) with it,
 * and the widget checks again what it is sent before it makes a link.
 */
export function webLink(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}
