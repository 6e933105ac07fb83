/**
 * A number the content states as a range holds every number inside it: "Do you deliver to 04109?"
 * is answered by "to the postcodes 04103 to 04357", though "04109" is in no passage. Only numbers
 * of four digits or more (postcodes, years, order numbers), and only ranges whose ends have as many
 * digits: "04103 to 04357" holds "04109", not "4200".
 */

/** "04103 to 04357", "1990–1995", "10000 - 10999", "from 2019 until 2021". */
const RANGE = /\b(\d{4,})\s*(?:to|-|–|—|until|through|thru)\s*(\d{4,})\b/gi;

/** Whether the text states a range that holds the number the word is. */
export function inStatedRange(word: string, text: string): boolean {
  if (!/^\d{4,}$/.test(word)) return false;
  const n = Number(word);
  for (const m of text.matchAll(RANGE)) {
    const [low, high] = [m[1]!, m[2]!];
    if (low.length !== word.length || high.length !== word.length) continue;
    if (Number(low) <= n && n <= Number(high)) return true;
  }
  return false;
}
