import { paragraphSpans, sentenceSpans } from '../../pipeline/text/segment-text.ts';

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
