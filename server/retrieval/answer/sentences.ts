import { paragraphSpans, sentenceSpans } from '../../language/segment-text.ts';

/**
 * The sentences of a passage, verbatim and trimmed, in reading order, read without leaning on
 * capital letters: customers and shops write in lower case, leave off the final full stop and end
 * a thought with an emoji. Unicode's sentence rules (Intl.Segmenter) never end a sentence before a
 * lower-case word or a number ("works great. fits my phone" stays one) and end one after every
 * initial or abbreviation before a capital ("John F. | Kennedy"): both are corrected here.
 */
export function splitSentences(text: string): string[] {
  const pieces: Piece[] = [];
  for (const paragraph of paragraphSpans(text)) {
    for (const span of sentenceSpans(text, paragraph)) {
      const startsLine = span.start === paragraph.start || startsLineAt(text, span.start);
      splitLowerCaseStarts(text.slice(span.start, span.end).trim()).forEach((sentence, i) => {
        if (sentence) pieces.push({ text: sentence, startsLine: startsLine && i === 0 });
      });
    }
  }
  return joinPieces(pieces);
}

type Piece = { text: string; startsLine: boolean };

function startsLineAt(text: string, index: number): boolean {
  let i = index - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  return i < 0 || text[i] === '\n';
}

/** Written with a full stop but never ending a sentence: titles, initials' kin, units and Latin. */
const HARD_ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'mt', 'no', 'nr', 'nos', 'vol', 'fig', 'approx', 'appr', 'ca', 'cf', 'incl', 'excl', 'vs',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'tel', 'ref', 'dept', 'pp', 'pcs', 'qty', 'ft',
  'sr', 'jr', 'gen', 'col', 'lt', 'capt', 'rev', 'hon',
]);
/** Abbreviations that also end sentences ("…rolls, buns etc. We also bake"): they end one before a capital only. */
const SOFT_ABBREVIATIONS = new Set(['etc', 'inc', 'ltd', 'co', 'corp', 'min', 'max', 'esp', 'a.m', 'p.m']);

/** The last word of a piece before its final full stop, lower-cased, without brackets or quotes before it. */
function lastWordBeforeStop(piece: string): string | null {
  const match = /(?:^|[\s("'“‘[])([^\s("'“‘[]+)\.["'”’)\]]*$/u.exec(piece);
  return match ? match[1]!.toLowerCase() : null;
}

/** How a piece ending in "." ends: a sentence, a word that never ends one, or one that may. */
function stopKind(piece: string): 'end' | 'hard' | 'soft' {
  if (!/\.["'”’)\]]*$/.test(piece)) return 'end';
  const word = lastWordBeforeStop(piece);
  if (word === null) return 'end';
  // An initial ("John F."), or letters each with a full stop ("U.S.", "e.g.", "a.m.").
  if (/^\p{L}$/u.test(word) || /^(?:\p{L}\.)+\p{L}$/u.test(word)) return SOFT_ABBREVIATIONS.has(word) ? 'soft' : 'hard';
  if (HARD_ABBREVIATIONS.has(word)) return 'hard';
  if (SOFT_ABBREVIATIONS.has(word)) return 'soft';
  return 'end';
}

/** A full stop, perhaps closed by a quote or bracket, then spaces and a lower-case letter or a digit. */
const STOP_BEFORE_LOWER = /\.["'”’)\]]*\s+(?=[\p{Ll}\d])/gu;
/** An emoji (with its modifiers) that closes a thought: "love it 😀 fits my phone". */
const EMOJI_THEN_WORD = /\p{Extended_Pictographic}[\p{Extended_Pictographic}\u{FE0F}\u{200D}\u{1F3FB}-\u{1F3FF}]*\s+(?=[\p{L}\d])/gu;
/** Words before and after an emoji for it to end a sentence: "I ❤️ bread" is one. */
const EMOJI_MIN_WORDS = 2;

/** The places the segmenter kept inside one sentence where one ends: ". it", ". 7 days", "😀 fits". */
function splitLowerCaseStarts(sentence: string): string[] {
  const cuts: number[] = [];
  for (const match of sentence.matchAll(STOP_BEFORE_LOWER)) {
    const before = sentence.slice(0, match.index + match[0].trimEnd().length);
    // "approx. 3 kg", "No. 5", "e.g. rye", a numbered list's "1. flour" go on.
    if (stopKind(before) !== 'end' || /^\s*\d{1,2}\.$/.test(before)) continue;
    cuts.push(match.index + match[0].length);
  }
  for (const match of sentence.matchAll(EMOJI_THEN_WORD)) {
    const end = match.index + match[0].length;
    const last = Math.max(0, ...cuts.filter((c) => c < end));
    if (wordCount(sentence.slice(last, match.index)) >= EMOJI_MIN_WORDS && wordCount(sentence.slice(end)) >= EMOJI_MIN_WORDS) cuts.push(end);
  }
  cuts.sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    parts.push(sentence.slice(from, cut).trim());
    from = cut;
  }
  parts.push(sentence.slice(from).trim());
  return parts.filter(Boolean);
}

const wordCount = (text: string) => (text.match(/[\p{L}\p{N}]+/gu) ?? []).length;

/** A line that ends without punctuation this long or longer was wrapped (a PDF's lines), not ended. */
const WRAPPED_LINE_CHARS = 50;
/** A list bullet or number at a line's start: the line is an entry of its own. */
const BULLET = /^(?:[-*•–·▪]|\d{1,2}[.)])\s/;

/**
 * Pieces joined back into sentences: after an initial or an abbreviation that never ends a
 * sentence ("John F. | Kennedy", "St. | Louis"), after one that may end one before a word that is
 * not capitalised, after a piece of a couple of characters ("1."), and a line that goes on a
 * long line without closing punctuation (a PDF wraps its lines; a list's entries are short).
 */
function joinPieces(pieces: Piece[]): string[] {
  const merged: string[] = [];
  let previousLine = '';
  for (const piece of pieces) {
    const previous = merged[merged.length - 1];
    const wrapped =
      piece.startsLine && previousLine.length >= WRAPPED_LINE_CHARS && !/[.!?…:;"'”’)\]]$/u.test(previousLine) && !BULLET.test(piece.text) && /^[\p{Ll}\d(,;]/u.test(piece.text);
    const kind = previous === undefined ? 'end' : stopKind(previous);
    const joins = previous !== undefined && (previous.length <= 4 || wrapped || (!piece.startsLine && (kind === 'hard' || (kind === 'soft' && !/^\p{Lu}/u.test(piece.text)))));
    if (joins) merged[merged.length - 1] = `${previous} ${piece.text}`;
    else merged.push(piece.text);
    previousLine = piece.startsLine ? piece.text : `${previousLine} ${piece.text}`;
  }
  return merged;
}

/** Ends as a sentence does: a full stop, "!" or "?", perhaps inside quotes or brackets. */
const ENDS_SENTENCE = /[.!?…]["'”’)\]]*$/;
/** Words a chunk's overlap with its neighbour must share before the two are joined there. */
const MIN_OVERLAP_WORDS = 3;
/** Longer than any overlap the chunker leaves (its overlap is counted in tokens, fewer than words). */
const MAX_OVERLAP_WORDS = 200;

const spaced = (text: string) => text.replace(/\s+/g, ' ');

/**
 * A sentence of a chunk as it may be shown, the part of it the chunk itself holds, and whether the
 * chunk's edge cut its start (the first sentence of a chunk that begins inside one).
 */
export type ChunkSentence = { text: string; piece: string; cutStart: boolean };

/** Joining punctuation at a chunk's start, where no neighbour tells: the rest of a sentence. */
const JOINING_START = /^[,;:)\]…]/u;

/**
 * The sentences of a chunk, the first and the last completed from the item's chunks before and
 * after it when the chunk's edge cut them ("and on a par with Oxford …" takes back its start, "…
 * Shakespeare scholar David" its end). A sentence no neighbour completes stays as it is. Whether
 * the first was cut is read from the chunk before (the item's first chunk has none and starts
 * where its text does), never from its first letter's case.
 */
export function chunkSentences(text: string, before?: string, after?: string): ChunkSentence[] {
  const original = splitSentences(text);
  const sentences = original.map((piece) => ({ text: piece, piece, cutStart: false }));
  if (sentences.length === 0) return sentences;
  const first = original[0]!;
  if (before !== undefined) {
    // Where the chunk repeats the end of the one before, the word before that overlap tells whether
    // the chunk starts a sentence: it ends one ("…great." before "fits my phone") or not. Without an
    // overlap the chunk starts where the one before ends: a short last line there is a heading or a
    // list's entry, a long one without a full stop runs on into this chunk.
    const overlap = overlapWords(before, text);
    const priorWords = [...before.trimEnd().matchAll(/\S+/g)];
    const prior = overlap > 0 ? priorWords[priorWords.length - overlap - 1] : undefined;
    const lastLine = before.trimEnd().split('\n').at(-1)!;
    const endsBefore =
      overlap === 0
        ? lastLine.length < WRAPPED_LINE_CHARS || ENDS_SENTENCE.test(lastLine)
        : prior === undefined || ENDS_SENTENCE.test(prior[0]) || /\n/.test(before.slice(prior.index! + prior[0].length, priorWords[priorWords.length - overlap]!.index));
    const joined = splitSentences(joinChunks(before, text));
    const completed = joined[joined.length - original.length];
    const completes =
      (overlap > 0 || !endsBefore || JOINING_START.test(first)) && completed !== undefined && completed.length > first.length && spaced(completed).endsWith(spaced(first));
    sentences[0]!.cutStart = completes || !endsBefore || JOINING_START.test(first);
    if (completes) sentences[0]!.text = completed;
  } else sentences[0]!.cutStart = JOINING_START.test(first);
  const last = original.length - 1;
  const tail = original[last]!;
  if (after !== undefined && !ENDS_SENTENCE.test(tail)) {
    const joined = splitSentences(joinChunks(text, after));
    const completed = joined[last];
    if (completed !== undefined && completed.length > tail.length && completed.startsWith(tail)) {
      // A single sentence cut at both edges keeps the start taken from the chunk before.
      sentences[last]!.text = `${sentences[last]!.text}${completed.slice(tail.length)}`;
    }
  }
  return sentences;
}

/**
 * Two neighbouring chunks as one text: the second's start repeats the first's end (the chunker's
 * overlap), which is kept once. Without an overlap of a few words they are joined with a space.
 */
export function joinChunks(first: string, second: string): string {
  const k = overlapWords(first, second);
  if (k === 0) return `${first.trimEnd()} ${second.trimStart()}`;
  const last = [...second.matchAll(/\S+/g)][k - 1]!;
  return `${first.trimEnd()}${second.slice(last.index! + last[0].length)}`;
}

/** How many words the second chunk's start repeats of the first's end (the chunker's overlap); 0 below a few. */
function overlapWords(first: string, second: string): number {
  const a = first.trimEnd().split(/\s+/);
  const words = [...second.matchAll(/\S+/g)];
  for (let k = Math.min(a.length, words.length, MAX_OVERLAP_WORDS); k >= MIN_OVERLAP_WORDS; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = a[a.length - k + i] === words[i]![0];
    if (same) return k;
  }
  return 0;
}
