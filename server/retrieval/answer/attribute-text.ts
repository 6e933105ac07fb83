/**
 * Product attributes as shops hold them, read as a visitor reads a label: machine attribute text
 * pasted into content ("is_heat_sensitive: { value:false }", "dishwasher_safe: true") becomes
 * "Heat sensitive: no", "Dishwasher safe: yes", which may answer "Is it dishwasher safe?". The
 * pipeline writes `sourceData` as such lines already (pipeline/text/source-data-text.ts).
 */

/** A machine key (snake_case or camelCase), a colon, and a scalar value, perhaps wrapped as `{ value: … }`. */
const ATTRIBUTE =
  /(?:^|[\s{,;(])["']?([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)["']?\s*:\s*(?:\{\s*["']?value["']?\s*:\s*)?("[^"{}]*"|'[^'{}]*'|true|false|-?\d+(?:[.,]\d+)?(?:\s?[a-z]{1,3}\b)?)/g;
/** Keys that are bookkeeping, never a property of the product. */
const NOISE = /(?:^|_)(?:id|ids|uuid|source|sku|url|uri|slug|hash|created|updated|modified|version|status|type|position|sort|order)(?:_|$)/i;

/** "Label: value" lines for the attributes in a piece of raw structured text, in order. */
export function attributeLines(text: string): string[] {
  const lines: string[] = [];
  for (const match of text.matchAll(ATTRIBUTE)) {
    const key = match[1]!;
    const snake = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
    if (NOISE.test(snake)) continue;
    const raw = match[2]!.replace(/^["']|["']$/g, '').trim();
    if (!raw) continue;
    const value = raw === 'true' ? 'yes' : raw === 'false' ? 'no' : raw;
    const words = snake.split('_').filter(Boolean);
    const shown = (words[0] === 'is' && words.length > 1 ? words.slice(1) : words).join(' ');
    const line = `${shown.charAt(0).toUpperCase()}${shown.slice(1)}: ${value}`;
    if (!lines.includes(line)) lines.push(line);
  }
  return lines;
}

/** A "Label: value" line ("Dishwasher safe: no", "Weight: 1 kg"): short, and whole as an answer. */
export function labelOf(line: string): string | null {
  const match = /^([\p{L}][\p{L}\p{N} '’-]{0,40}):\s*\S/u.exec(line);
  return match ? match[1]! : null;
}
