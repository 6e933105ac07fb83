/**
 * Chunk stage for an extracted file: each section (a PDF page, or the text under one heading) is
 * chunked on its own, so no passage spans two pages or two headings, nor holds parts of two
 * paragraphs (`wholeParagraphs`), and every passage carries
 * its page or its heading path, which is also embedded with it as its context
 * ("Returns policy › Returns › Damaged goods" before the passage). Each passage also names the
 * paragraph of the document it comes from, so search can take the passages cut from one long
 * paragraph as one.
 */
import { paragraphSpans } from '../language/segment-text.ts';
import { chunkItem } from './chunk.ts';
import type { ExtractedDocument } from './extract/document.ts';
import { HEADING_SEPARATOR } from './extract/heading-path.ts';
import type { Chunk, ChunkOptions } from './types.ts';

export type DocumentItem = { title: string; text: string; chunks: Chunk[] };

export function chunkDocument(document: ExtractedDocument, fileName: string, options: ChunkOptions): DocumentItem {
  const title = document.title ?? fileName;
  const chunks: Chunk[] = [];
  const paragraphs: string[] = [];
  let lastHeadings = '';
  /** Paragraphs of the sections before this one. */
  let paragraphsBefore = 0;
  for (const section of document.sections) {
    const headingPath = section.headings.join(HEADING_SEPARATOR);
    // The item's whole text reads like the document: a heading line where the headings change.
    if (headingPath && headingPath !== lastHeadings) paragraphs.push(section.headings.at(-1)!);
    lastHeadings = headingPath;
    paragraphs.push(section.text);
    const context = [title, ...section.headings].join(HEADING_SEPARATOR);
    const starts = paragraphSpans(section.text).map((span) => span.start);
    let from = 0;
    for (const chunk of chunkItem({ title: context, text: section.text }, { ...options, wholeParagraphs: true })) {
      // A passage is a verbatim slice of the section, each starting after the one before.
      const start = section.text.indexOf(chunk.text, from);
      from = start + 1;
      const within = starts.findLastIndex((s) => s <= start);
      chunks.push({
        ...chunk,
        index: chunks.length,
        paragraph: paragraphsBefore + Math.max(0, within),
        ...(section.page !== undefined ? { page: section.page } : {}),
        ...(headingPath ? { section: headingPath } : {}),
      });
    }
    paragraphsBefore += Math.max(1, starts.length);
  }
  return { title, text: paragraphs.join('\n\n'), chunks };
}
