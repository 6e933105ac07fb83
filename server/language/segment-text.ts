/**
 * Where text may be split, coarse to fine: paragraphs, sentences, words, pieces of a word. Spans
 * are offsets into the original string and never include surrounding whitespace, so any run of
 * consecutive spans slices back to verbatim, trimmed text.
 */

export type Span = { start: number; end: number };

/**
 * V8's Intl.Segmenter gets slower per segment as the string grows (≈1 µs per sentence in 500
 * characters, ≈10 µs in 32,000, seconds for a megabyte), so it only ever sees short windows.
 */
const SEGMENTER_WINDOW = 2_000;
const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

const PARAGRAPH_BREAK = /\n[^\S\n]*\n\s*/g;

export function paragraphSpans(text: string): Span[] {
  const spans: Span[] = [];
  let start = 0;
  for (const match of text.matchAll(PARAGRAPH_BREAK)) {
    pushTrimmed(text, start, match.index, spans);
    start = match.index + match[0].length;
  }
  pushTrimmed(text, start, text.length, spans);
  return spans;
}

/** Sentences of a span. A line break always ends a sentence, as in Unicode's rules (UAX #29). */
export function sentenceSpans(text: string, span: Span): Span[] {
  const spans: Span[] = [];
  let lineStart = span.start;
  while (lineStart < span.end) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 || newline > span.end ? span.end : newline;
    segmentInWindows(sentenceSegmenter, text, lineStart, lineEnd, spans);
    lineStart = lineEnd + 1;
  }
  return joinUnspaced(text, spans);
}

/**
 * The segmenter ends a sentence at every "?" and "!", also inside a web address
 * ("https://example.com/search?q=cakes"). An ASCII "?", "!" or "." with no space after it ends no
 * sentence, so such pieces are joined again. (Chinese and Japanese end sentences with full-width
 * marks and no space, which this leaves alone.)
 */
function joinUnspaced(text: string, spans: Span[]): Span[] {
  const joined: Span[] = [];
  for (const span of spans) {
    const previous = joined[joined.length - 1];
    if (previous && span.start === previous.end && '?!.'.includes(text[previous.end - 1]!)) previous.end = span.end;
    else joined.push(span);
  }
  return joined;
}

/** Whitespace-separated words: what a single over-long sentence is split into. */
export function wordSpans(text: string, span: Span): Span[] {
  const spans: Span[] = [];
  const word = /\S+/g;
  word.lastIndex = span.start;
  for (let match = word.exec(text); match && match.index < span.end; match = word.exec(text)) {
    spans.push({ start: match.index, end: Math.min(match.index + match[0].length, span.end) });
  }
  return spans;
}

/** Word-boundary pieces of a run without spaces (Chinese or Japanese text, `foo.bar/baz` runs). */
export function wordPieceSpans(text: string, span: Span): Span[] {
  const spans: Span[] = [];
  segmentInWindows(wordSegmenter, text, span.start, span.end, spans);
  return spans;
}

/** Last resort for one giant token: two halves, never splitting a surrogate pair. */
export function halveSpan(text: string, span: Span): Span[] {
  let middle = Math.floor((span.start + span.end) / 2);
  if (isLowSurrogate(text.charCodeAt(middle))) middle++;
  if (middle <= span.start || middle >= span.end) return [span];
  return [
    { start: span.start, end: middle },
    { start: middle, end: span.end },
  ];
}

function segmentInWindows(segmenter: Intl.Segmenter, text: string, start: number, end: number, out: Span[]): void {
  let from = start;
  while (from < end) {
    const to = Math.min(end, from + SEGMENTER_WINDOW);
    let last: Span | null = null;
    for (const { index, segment } of segmenter.segment(text.slice(from, to))) {
      if (last) pushTrimmed(text, last.start, last.end, out);
      last = { start: from + index, end: from + index + segment.length };
    }
    if (!last) return;
    if (to === end) {
      pushTrimmed(text, last.start, last.end, out);
      return;
    }
    // The window's last segment may go on past it: the next window starts there. A segment that
    // fills the whole window is cut at its last space so no word is split.
    if (last.start > from) {
      from = last.start;
      continue;
    }
    const space = text.lastIndexOf(' ', to - 1);
    const cut = space > from ? space : isLowSurrogate(text.charCodeAt(to)) ? to + 1 : to;
    pushTrimmed(text, from, cut, out);
    from = cut;
  }
}

function pushTrimmed(text: string, start: number, end: number, out: Span[]): void {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (end > start) out.push({ start, end });
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13 || code === 0xa0 || code === 0x3000;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
