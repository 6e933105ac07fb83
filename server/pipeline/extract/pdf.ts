import { getDocumentProxy } from 'unpdf';
import { cleanLine, cleanText } from '../text/clean-text.ts';
import { type DocumentSection, type ExtractedDocument, ExtractionError } from './document.ts';

/**
 * PDF through unpdf (Mozilla's pdf.js in a build for servers, without a canvas or a browser): the
 * text layer of each page becomes one section with its page number. Lines further apart than
 * usual start a new paragraph, so the chunker can cut there. The title is the document's Title
 * property.
 */
export async function extractPdf(bytes: Uint8Array): Promise<ExtractedDocument> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // No font faces, no eval: text only, and nothing in the file gets to run code.
    pdf = await getDocumentProxy(bytes, { isEvalSupported: false, disableFontFace: true, stopAtErrors: false, verbosity: 0 });
  } catch (error) {
    throw pdfError(error);
  }
  try {
    const sections: DocumentSection[] = [];
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      const text = cleanText(pageText(content.items as TextItem[]));
      if (text) sections.push({ page: number, headings: [], text });
      page.cleanup();
    }
    if (sections.length === 0) {
      throw new ExtractionError(
        pdf.numPages === 0
          ? 'the PDF has no pages'
          : `none of its ${pdf.numPages} page(s) has a text layer (scanned pages or pictures of text): it needs OCR (text recognition) first, which LocalIQ does not do; run it through an OCR tool and upload the result`,
      );
    }
    const info = ((await pdf.getMetadata().catch(() => null))?.info ?? {}) as { Title?: unknown };
    const title = typeof info.Title === 'string' ? cleanLine(info.Title) : '';
    return { title: title || null, sections, pages: pdf.numPages };
  } catch (error) {
    throw error instanceof ExtractionError ? error : pdfError(error);
  } finally {
    await pdf.destroy();
  }
}

type TextItem = { str?: string; transform?: number[]; height?: number; hasEOL?: boolean };

/**
 * A page's text items as lines and paragraphs: an item lower than the last starts a line, and a
 * gap of more than about two line heights starts a paragraph.
 */
function pageText(items: TextItem[]): string {
  let out = '';
  let lastY: number | null = null;
  let lastHeight = 0;
  for (const item of items) {
    if (!item.str) {
      if (item.hasEOL && out && !out.endsWith('\n')) out += '\n';
      continue;
    }
    const y = item.transform?.[5] ?? null;
    const height = item.height || lastHeight || 1;
    if (y !== null && lastY !== null) {
      const gap = Math.abs(lastY - y);
      if (gap > height * 0.5 && !out.endsWith('\n')) out += '\n';
      if (gap > Math.max(height, lastHeight) * 1.8 && !out.endsWith('\n\n')) out += '\n';
    }
    out += item.str;
    if (item.hasEOL) out += '\n';
    if (y !== null) {
      lastY = y;
      lastHeight = height;
    }
  }
  return out;
}

function pdfError(error: unknown): ExtractionError {
  const name = (error as { name?: string }).name ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'PasswordException') {
    return new ExtractionError('the PDF is password-protected; save a copy without a password and upload that');
  }
  if (name === 'InvalidPDFException' || name === 'FormatError' || name === 'MissingPDFException') {
    return new ExtractionError(`the PDF is damaged or cut short and cannot be read (${message})`);
  }
  return new ExtractionError(`the PDF cannot be read (${message})`);
}
