/**
 * What an extractive answer may quote, and how a quoted sentence is shown. A sentence can match the
 * question well and still be no answer to show a shop's visitor: raw structured data pasted into
 * content, a question a customer asked, or the tail of a sentence cut at a chunk's edge.
 */

/**
 * Object syntax or a machine key before a colon: "}; { source: …", "is_heat_sensitive: { value:false }".
 * Code in a how-to ("-exec dropbox filestatus {} \;", "function(a) { return a; }") is not data and stays.
 */
const RAW_STRUCTURE = /\}\s*[;,]?\s*\{|\{\s*["']?\w+["']?\s*:|[\w"']\s*:\s*\{|\b[a-z][a-z0-9]*_[a-z0-9_]+\s*:|^\s*[}\]]/;
/** A sentence that asks ("Will this fit a 26 cm tin?"), also in the middle ("Q: fits? A: yes"). */
const ASKS = /\?["'”’)\]]*(?:\s|$)/;
/** A labelled customer question or answer in product Q&A: "Question: …", "Q.", "Customer question:". */
const QA_LABEL = /^\W*(?:customer\s+)?(?:q|question|frage)\s*[:.)]/i;
/** List bullets and numbering, and an "Answer:" label: not part of what the sentence says. */
const LEADING_MARKS = /^(?:\s*(?:[-*•–·▪]|\d{1,2}[.)])\s+|\s*(?:a|answer)\s*:\s*)+/i;

/** Raw structured data: not quoted, but its attributes may be read (attribute-text.ts). */
export function holdsRawData(text: string): boolean {
  return RAW_STRUCTURE.test(text);
}

/**
 * Whether a sentence may be quoted; `cutStart`: a chunk's edge cut its start (sentences.ts reads
 * that from the chunk before, not from a lower-case first letter, which customers' text has).
 */
export function quotable(text: string, cutStart = false): boolean {
  if (RAW_STRUCTURE.test(text) || ASKS.test(text) || QA_LABEL.test(text)) return false;
  return !cutStart;
}

/**
 * The sentence as the answer shows it: without a leading bullet, number or "Answer:" label, and
 * without raw data pasted after its end ("…for eight people. }; { source: 'erp' }"), which the
 * sentence segmenter leaves attached because it starts with no capital.
 */
export function shownText(text: string): string {
  const shown = text.replace(LEADING_MARKS, '').trim();
  const raw = RAW_STRUCTURE.exec(shown);
  const before = raw ? shown.slice(0, raw.index).trim() : '';
  return raw && /[.!]$/.test(before) ? before : shown;
}
