/** Where a cited passage of an uploaded file is: its PDF page or the headings above it. */
export type PassagePlace = { title: string; page?: number | undefined; section?: string | null | undefined };

const HEADING_SEPARATOR = ' › ';

/**
 * The part of a citation written after its title: ", page 4" or ", Returns › Damaged goods", or
 * nothing for a pushed item. A document's top heading is usually its title too ("Bakery FAQ" over
 * "Bakery FAQ › Parking"), so a heading path that starts with the title leaves that heading out:
 * "Bakery FAQ, Parking", not "Bakery FAQ, Bakery FAQ › Parking". `pageWord` is the word for
 * "page" in the reader's language.
 */
export function citationPlace(citation: PassagePlace, pageWord = 'page'): string {
  if (citation.page !== undefined) return `, ${pageWord} ${citation.page}`;
  const section = citation.section?.trim();
  if (!section) return '';
  const title = citation.title.trim();
  const headings = section.split(HEADING_SEPARATOR);
  const below = headings.length > 1 && headings[0]!.trim().toLowerCase() === title.toLowerCase() ? headings.slice(1) : headings;
  // The only heading is the title itself: the title already says where the passage is.
  if (headings.length === 1 && section.toLowerCase() === title.toLowerCase()) return '';
  return `, ${below.join(HEADING_SEPARATOR)}`;
}
