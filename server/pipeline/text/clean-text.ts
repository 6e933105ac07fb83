/**
 * Text hygiene shared by body, title and sourceData values: one Unicode form, no invisible
 * characters, predictable whitespace. Search, chunking and citations all rely on this shape.
 */

// Line and paragraph separators other than \n, so every later step only has to know \n.
const LINE_BREAKS = /\r\n?|[\u0085\u2028]/g;
const PAGE_AND_PARAGRAPH_BREAKS = /[\u000b\u000c\u2029]/g;
/** Control characters (Cc) except tab and newline. */
const CONTROL_CHARS = /[^\P{Cc}\t\n]/gu;
// Invisible characters that split or glue words without showing: soft hyphen, zero-width space,
// word joiner, BOM. Zero-width (non-)joiners stay: emoji sequences and some scripts need them.
const INVISIBLE_CHARS = /[\u00ad\u200b\u2060\ufeff]/g;
/** Every kind of whitespace except the newline (tabs, NBSP, ideographic space…). */
const INLINE_WHITESPACE = /[^\S\n]+/g;
const SPACES_AROUND_NEWLINE = / ?\n ?/g;
const BLANK_LINE_RUNS = /\n{3,}/g;

/**
 * Multi-line text: NFC, paragraphs separated by exactly one blank line, single newlines kept
 * (list items, table rows, addresses are lines), whitespace folded to one space inside lines.
 */
export function cleanText(raw: string): string {
  return raw
    .toWellFormed()
    .normalize('NFC')
    .replace(LINE_BREAKS, '\n')
    .replace(PAGE_AND_PARAGRAPH_BREAKS, '\n\n')
    .replace(CONTROL_CHARS, '')
    .replace(INVISIBLE_CHARS, '')
    .replace(INLINE_WHITESPACE, ' ')
    .replace(SPACES_AROUND_NEWLINE, '\n')
    .replace(BLANK_LINE_RUNS, '\n\n')
    .trim();
}

/** Single-line text (titles, sourceData values): like `cleanText`, then every break becomes a space. */
export function cleanLine(raw: string): string {
  return cleanText(raw).replace(/\n+/g, ' ');
}
