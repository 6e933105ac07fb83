import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { cleanLine, cleanText } from '../text/clean-text.ts';
import { type DocumentSection, type ExtractedDocument, ExtractionError } from './document.ts';
import { OcrFailure, type Recognizer, startRecognizer } from './ocr.ts';
import { pageImages } from './page-images.ts';
import { pdfTitle } from './pdf-title.ts';

export type PdfOptions = {
  /** Read the pictures of pages without a text layer by text recognition (LOCALIQ_OCR). */
  ocr: boolean;
  /** Told before each page is recognised ("page 3 of 20"), so a time-out can say how far it got. */
  onOcrPage?: (page: number, pages: number) => void;
};

/**
 * Largest picture decoded, in pixels: an A4 page scanned at 600 dpi is 35 million. A bigger one
 * (a file built to exhaust memory) is skipped by pdf.js rather than decoded.
 */
const MAX_IMAGE_PIXELS = 50_000_000;

/**
 * PDF through unpdf (Mozilla's pdf.js in a build for servers, without a canvas or a browser): the
 * text layer of each page becomes one section with its page number. Lines further apart than
 * usual start a new paragraph, so the chunker can cut there. The title is the document's Title
 * property.
 *
 * A page without a text layer is, with `ocr` on, read from its pictures by text recognition
 * (ocr.ts, page-images.ts): its section keeps its page number and the document lists it in
 * `ocrPages`. The recogniser starts with the first such page and ends with the file.
 */
export async function extractPdf(bytes: Uint8Array, options: PdfOptions = { ocr: false }): Promise<ExtractedDocument> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // No font faces, no eval: text only, and nothing in the file gets to run code.
    pdf = await getDocumentProxy(bytes, {
      isEvalSupported: false,
      disableFontFace: true,
      stopAtErrors: false,
      verbosity: 0,
      maxImageSize: MAX_IMAGE_PIXELS,
    });
  } catch (error) {
    throw pdfError(error);
  }
  let recognizer: Recognizer | null = null;
  try {
    const sections: DocumentSection[] = [];
    const ocrPages: number[] = [];
    let pictures = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let text = cleanText(pageText(content.items as TextItem[]));
      if (!text && options.ocr) {
        const images = await pageImages(page);
        pictures += images.length;
        if (images.length > 0) {
          options.onOcrPage?.(number, pdf.numPages);
          recognizer ??= await startRecognizer();
          const texts: string[] = [];
          const inches = Math.abs(page.view[2]! - page.view[0]!) / 72 || 8.27;
          for (const image of images) texts.push(await recognizer.recognize(image, clampDpi(image.width / inches)));
          text = cleanText(texts.join('\n\n'));
          if (text) ocrPages.push(number);
        }
      }
      if (text) sections.push({ page: number, headings: [], text });
      page.cleanup();
    }
    if (sections.length === 0) throw new ExtractionError(noTextReason(pdf.numPages, options.ocr, pictures));
    const info = ((await pdf.getMetadata().catch(() => null))?.info ?? {}) as { Title?: unknown };
    const title = typeof info.Title === 'string' ? pdfTitle(cleanLine(info.Title)) : null;
    return { title, sections, pages: pdf.numPages, ...(ocrPages.length > 0 ? { ocrPages } : {}) };
  } catch (error) {
    throw error instanceof ExtractionError || error instanceof OcrFailure ? error : pdfError(error);
  } finally {
    await recognizer?.close().catch(() => {});
    await pdf.destroy();
  }
}

/**
 * Loads pdf.js (unpdf imports it on first use): a reader does it before it says it is ready, so
 * the first PDF's time cap is not spent loading the parser on a busy machine.
 */
export async function loadPdfReader(): Promise<void> {
  await getResolvedPDFJS();
}

/** A picture's resolution from its width across the page: scans are 150-600 dpi; the rest is a guess's bounds. */
function clampDpi(dpi: number): number {
  return Math.min(1200, Math.max(70, dpi));
}

/** Why a PDF gave no text at all, and what to do about it. */
function noTextReason(pages: number, ocr: boolean, pictures: number): string {
  if (pages === 0) return 'the PDF has no pages';
  const scanned = `none of its ${pages} page(s) has a text layer (scanned pages or pictures of text)`;
  if (ocr && pictures === 0) return `${scanned}, and it has no pictures for text recognition (OCR) to read: its pages are drawn shapes`;
  if (ocr) {
    return `${scanned}, and text recognition (OCR) found no English text in its ${pictures} picture(s); if it has text, scan it again more sharply (300 dpi) or run it through another OCR tool and upload the result`;
  }
  return `${scanned}: it needs OCR (text recognition) first. LocalIQ does it when started with LOCALIQ_OCR=on (docs/pipeline.md#ocr); or run it through an OCR tool and upload the result`;
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
