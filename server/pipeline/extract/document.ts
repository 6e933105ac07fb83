/**
 * What extraction makes of a file: its own title (if it has one) and its text in sections, each
 * with where it is in the document (a PDF page, or the headings above it), so chunks never span two
 * sections and each chunk can be cited as "page 4" or "Returns › Damaged goods".
 */
export type DocumentSection = {
  /** 1-based page of a PDF; absent for documents without pages. */
  page?: number;
  /** The headings above this text, outermost first; empty before the first heading. */
  headings: string[];
  /** Clean text: paragraphs separated by blank lines. */
  text: string;
};

export type ExtractedDocument = {
  /** The document's own title (PDF and DOCX properties, HTML <title>, a Markdown or HTML first-level heading). */
  title: string | null;
  sections: DocumentSection[];
  /** Pages of a PDF, for the throughput bench and the document view. */
  pages?: number;
  /** Pages of a PDF whose text was read from their pictures by text recognition (OCR). */
  ocrPages?: number[];
};

/**
 * A file that cannot be read, said so a person understands what to do. Trying again cannot help
 * (the job fails at once, not after its retries).
 */
export class ExtractionError extends Error {
  override readonly name = 'ExtractionError';
}
