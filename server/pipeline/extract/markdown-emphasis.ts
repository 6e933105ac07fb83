/**
 * The CommonMark parser resolves emphasis (`*`, `_`) one pair at a time, splicing the events of
 * the whole paragraph each time: a paragraph with thousands of markers (`*a*a*a…`) costs time in
 * the square of its length (60 KB of it held a reader for minutes). Before parsing, a block (lines
 * between blank lines or up to the next list item, heading or table row; fenced code left alone)
 * with more marker runs than a paragraph of real writing has gets its markers escaped: it is read
 * as the plain text it is, with its asterisks and underscores kept as characters, and the parse
 * stays linear in the file.
 */

/** Marker runs one block may hold and still be parsed for emphasis: ~150 emphasised words. */
export const MAX_EMPHASIS_RUNS_PER_BLOCK = 300;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/**
 * Lines that start a paragraph of their own even without a blank line before them (a list item, a
 * heading, a table row): a long tight list of bold names is many small paragraphs, not one flood.
 */
const BLOCK_START = /^(?:\s*(?:[-*+]|\d{1,9}[.)])\s|\s{0,3}(?:#{1,6}(?:\s|$)|\|))/;
/** A list item's marker, kept as it is when the rest of its line is escaped. */
const LIST_MARKER = /^\s*(?:[-*+]|\d{1,9}[.)])\s+/;

/** `markdown` with the emphasis markers of every block over `maxRuns` escaped; the rest unchanged. */
export function escapeEmphasisFloods(markdown: string, maxRuns = MAX_EMPHASIS_RUNS_PER_BLOCK): string {
  // A cheap test first: a file with few markers in all needs no pass.
  if (countRuns(markdown) <= maxRuns) return markdown;
  const lines = markdown.split('\n');
  let fence: string | null = null;
  let block: number[] = [];
  const flush = () => {
    if (block.length > 0 && countRuns(block.map((i) => lines[i]).join('\n')) > maxRuns) {
      for (const i of block) lines[i] = escapeMarkers(lines[i]!);
    }
    block = [];
  };
  lines.forEach((line, i) => {
    const opened = FENCE.exec(line)?.[1];
    if (fence !== null) {
      // Inside fenced code: no emphasis is parsed there, and its text must stay as it is.
      if (opened && opened[0] === fence[0] && opened.length >= fence.length && line.trim() === opened) fence = null;
      return;
    }
    if (opened) {
      flush();
      fence = opened;
      return;
    }
    if (line.trim() === '') return flush();
    if (BLOCK_START.test(line)) flush();
    block.push(i);
  });
  flush();
  return lines.join('\n');
}

/** Runs of `*` or `_` (each run is one delimiter to the parser), backslash escapes not counted. */
function countRuns(text: string): number {
  let runs = 0;
  for (const match of text.matchAll(/\\[\s\S]|[*_]+/g)) if (match[0][0] !== '\\') runs++;
  return runs;
}

/** Every `*` and `_` of a line escaped (a list item's marker aside); characters already escaped are left as they are. */
function escapeMarkers(line: string): string {
  const marker = LIST_MARKER.exec(line)?.[0] ?? '';
  return marker + line.slice(marker.length).replace(/\\[\s\S]|[*_]/g, (match) => (match.length === 2 ? match : `\\${match}`));
}
