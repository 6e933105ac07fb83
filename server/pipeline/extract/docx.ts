import mammoth from 'mammoth';
import { cleanLine } from '../text/clean-text.ts';
import { decodeHtmlEntities } from '../text/html-to-plain-text.ts';
import { type ExtractedDocument, ExtractionError } from './document.ts';
import { extractHtml } from './html.ts';
import { readZipEntry, zipBomb, zipEntries } from './zip-entries.ts';

/**
 * Most bytes a Word document may unpack to, all its parts together. A 300-page manual with
 * pictures unpacks to tens of megabytes; a zip bomb to gigabytes.
 */
const DOCX_MAX_INFLATED_BYTES = 200_000_000;

/**
 * DOCX through mammoth (Word's structure as semantic HTML: headings stay headings), then the HTML
 * sections (html.ts). Before mammoth unpacks anything, every part is unpacked here with a cap on
 * the bytes it may produce, so a zip bomb is refused whatever sizes it declares. The title is the
 * document's Title property, else its first first-level heading.
 */
export async function extractDocx(bytes: Buffer, maxInflated = DOCX_MAX_INFLATED_BYTES): Promise<ExtractedDocument> {
  const entries = zipEntries(bytes);
  if (!entries.some((entry) => entry.name === 'word/document.xml')) {
    throw new ExtractionError('it is a ZIP archive but not a Word document (.docx): it has no word/document.xml');
  }
  const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (declared > maxInflated) throw zipBomb(maxInflated);
  let budget = maxInflated;
  let coreXml = '';
  for (const entry of entries) {
    if (entry.name.endsWith('/')) continue;
    const data = readZipEntry(bytes, entry, budget);
    budget -= data.length;
    if (entry.name === 'docProps/core.xml') coreXml = data.toString('utf8');
  }
  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: bytes })).value;
  } catch (error) {
    throw new ExtractionError(`the Word document is damaged and cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  const document = extractHtml(html, { useTitleTag: false });
  const title = cleanLine(decodeHtmlEntities(coreXml.match(/<dc:title>([\s\S]*?)<\/dc:title>/)?.[1] ?? ''));
  return { ...document, title: title || document.title };
}
