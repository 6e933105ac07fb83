/**
 * A PDF's metadata Title, when it names the document. Tools that print to PDF fill it with what
 * they had: a browser's page address ("about:blank", "file:///C:/…/prices.html"), "Untitled", or
 * Office's "Microsoft Word - Prices.docx". Such a title would head the item and every citation,
 * so it counts as missing (the file's name is used) or is cut down to the document's own name.
 */
export function pdfTitle(raw: string): string | null {
  const title = raw
    .replace(/^Microsoft (?:Word|Excel|PowerPoint) - /i, '')
    .replace(/\.(?:docx?|xlsx?|pptx?|odt|rtf|txt|html?)$/i, '')
    .trim();
  if (!title) return null;
  if (/^(?:about|file|https?|data|blob|chrome):/i.test(title)) return null;
  if (/^(?:untitled|document\d*|dokument\d*|sans titre|ohne titel)$/i.test(title)) return null;
  return title;
}
