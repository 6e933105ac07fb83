/**
 * Normalize stage: an ingested item (HTML or plain text, free-form sourceData) becomes clean text
 * with paragraphs, ready to be chunked, cited and searched.
 */
import type { IngestItem, SourceType } from '../../common/contract/ingest.ts';
import { cleanLine, cleanText } from './text/clean-text.ts';
import { decodeHtmlEntities, hasHtmlEntity, htmlToPlainText, looksLikeHtml } from './text/html-to-plain-text.ts';
import { sourceDataLines } from './text/source-data-text.ts';
import type { NormalizedItem } from './types.ts';

type ItemContent = Pick<IngestItem['data'], 'title' | 'content' | 'sourceData'>;

export function normalizeItem(sourceType: SourceType, data: ItemContent): NormalizedItem {
  const title = cleanLine(toPlainText(data.title ?? ''));
  const body = cleanText(toPlainText(data.content ?? ''));
  // sourceData goes last as its own paragraph: the body keeps its offsets and reads first.
  const facts = sourceDataLines(sourceType, data.sourceData, title).join('\n');
  return { title, text: [body, facts].filter(Boolean).join('\n\n') };
}

/** Markup goes through the HTML converter; plain text only has its entities decoded, if any. */
function toPlainText(raw: string): string {
  if (looksLikeHtml(raw)) return htmlToPlainText(raw);
  if (!hasHtmlEntity(raw)) return raw;
  const decoded = decodeHtmlEntities(raw);
  // Some CMSs escape their HTML once too often ("&lt;p&gt;"): decoded, it is markup again.
  return looksLikeHtml(decoded) ? htmlToPlainText(decoded) : decoded;
}
