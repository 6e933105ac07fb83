import { paragraphSpans, sentenceSpans } from '../../text/segment-text.ts';
import { startsCut } from './quotable.ts';

/** The sentences of a passage, verbatim and trimmed, in reading order. */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const paragraph of paragraphSpans(text)) {
    for (const span of sentenceSpans(text, paragraph)) {
      const sentence = text.slice(span.start, span.end).trim();
      if (sentence) sentences.push(sentence);
    }
  }
  return mergeFragments(sentences);
}

/**
 * The sentence segmenter splits after abbreviations ("U.S. Army", "St. Louis"); a piece that
 * starts in lower case or is a couple of characters long belongs to the sentence before it.
 */
function mergeFragments(sentences: string[]): string[] {
  const merged: string[] = [];
  for (const sentence of sentences) {
    const previous = merged[merged.length - 1];
    if (previous !== undefined && (/^[\p{Ll}\d(,;]/u.test(sentence) || previous.length <= 4)) {
      merged[merged.length - 1] = `${previous} ${sentence}`;
    } else merged.push(sentence);
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

/** A sentence of a chunk as it may be shown, and the part of it the chunk itself holds. */
export type ChunkSentence = { text: string; piece: string };

/**
 * The sentences of a chunk, the first and the last completed from the item's chunks before and
 * after it when the chunk's edge cut them ("and on a par with Oxford …" takes back its start, "…
 * Shakespeare scholar David" its end). A sentence no neighbour completes stays as it is.
 */
export function chunkSentences(text: string, before?: string, after?: string): ChunkSentence[] {
  const original = splitSentences(text);
  const sentences = original.map((piece) => ({ text: piece, piece }));
  if (sentences.length === 0) return sentences;
  const first = original[0]!;
  if (before !== undefined && startsCut(first)) {
    const joined = splitSentences(joinChunks(before, text));
    const completed = joined[joined.length - original.length];
    if (completed !== undefined && completed.length > first.length && spaced(completed).endsWith(spaced(first))) sentences[0]!.text = completed;
  }
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
  const a = first.trimEnd().split(/\s+/);
  const words = [...second.matchAll(/\S+/g)];
  for (let k = Math.min(a.length, words.length, MAX_OVERLAP_WORDS); k >= MIN_OVERLAP_WORDS; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = a[a.length - k + i] === words[i]![0];
    if (same) {
      const end = words[k - 1]!.index! + words[k - 1]![0].length;
      return `${first.trimEnd()}${second.slice(end)}`;
    }
  }
  return `${first.trimEnd()} ${second.trimStart()}`;
}
