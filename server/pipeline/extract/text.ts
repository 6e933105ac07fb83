import { cleanText } from '../text/clean-text.ts';
import type { ExtractedDocument } from './document.ts';

/** Plain text: one section, no title of its own. */
export function extractText(text: string): ExtractedDocument {
  const clean = cleanText(text.replace(/^\uFEFF/, ''));
  return { title: null, sections: clean ? [{ headings: [], text: clean }] : [] };
}
