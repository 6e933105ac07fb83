import { decodeHtmlEntities } from '../text/html-to-plain-text.ts';
import { htmlToPlainText } from '../text/html-to-plain-text.ts';
import { cleanLine, cleanText } from '../text/clean-text.ts';
import type { DocumentSection, ExtractedDocument } from './document.ts';
import { HeadingPath } from './heading-path.ts';

const HEADING = /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi;
const TITLE = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i;

/**
 * An HTML page (or a Word document as mammoth writes it) in sections at its headings, each
 * section's text through the same converter as pushed HTML (../text/html-to-plain-text.ts).
 * The title is the page's <title>, else its first first-level heading.
 */
export function extractHtml(html: string, { useTitleTag = true } = {}): ExtractedDocument {
  const sections: DocumentSection[] = [];
  const path = new HeadingPath();
  let firstH1: string | null = null;
  let from = 0;
  const addSection = (until: number) => {
    const text = cleanText(htmlToPlainText(html.slice(from, until)));
    if (text) sections.push({ headings: path.current(), text });
  };
  for (const match of html.matchAll(HEADING)) {
    addSection(match.index);
    const heading = cleanLine(htmlToPlainText(match[2]!));
    const level = Number(match[1]);
    if (heading) {
      path.enter(level, heading);
      if (level === 1) firstH1 ??= heading;
    }
    from = match.index + match[0].length;
  }
  addSection(html.length);
  const titleTag = useTitleTag ? cleanLine(decodeHtmlEntities(html.match(TITLE)?.[1]?.replace(/<[^>]*>/g, '') ?? '')) : '';
  return { title: titleTag || firstH1, sections };
}
