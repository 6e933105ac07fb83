/**
 * Chunk stage for an extracted file: each section (a PDF page, or the text under one heading) is
 * chunked on its own, so no passage spans two pages or two headings, nor holds parts of two
 * paragraphs (`wholeParagraphs`), and every passage carries
 * its page or its heading path, which is also embedded with it as its context
 * ("Returns policy › Returns › Damaged goods" before the passage).
 */
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
  for (const section of document.sections) {
    const headingPath = section.headings.join(HEADING_SEPARATOR);
    // The item's whole text reads like the document: a heading line where the headings change.
    if (headingPath && headingPath !== lastHeadings) paragraphs.push(section.headings.at(-1)!);
    lastHeadings = headingPath;
    paragraphs.push(section.text);
    const context = [title, ...section.headings].join(HEADING_SEPARATOR);
    for (const chunk of chunkItem({ title: context, text: section.text }, { ...options, wholeParagraphs: true })) {
      chunks.push({
        ...chunk,
        index: chunks.length,
        ...(section.page !== undefined ? { page: section.page } : {}),
        ...(headingPath ? { section: headingPath } : {}),
      });
    }
  }
  return { title, text: paragraphs.join('\n\n'), chunks };
}
