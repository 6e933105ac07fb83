/**
 * Words a shop's visitors and the shop write differently for one thing: a visitor asks for a
 * "discount" where the shop writes "10 % off", for "kids" where it writes "Children's cut", for a
 * "voucher" where it sells "gift cards". A small built-in English list, the same for every
 * knowledge base (an owner's own synonyms change search, and through it the words answers read:
 * assistant.ts); a question's word on it is held by a sentence holding any of its forms.
 */

/** Each entry: the question words (lower case) and what a sentence holds when it says the same. */
const EQUIVALENTS: Array<{ asked: RegExp; said: RegExp }> = [
  {
    asked: /^(?:discounts?|discounted|reductions?|sales?|deals?|offers?)$/,
    said: /\b\d+(?:[.,]\d+)?\s?%\s?(?:off|discount)\b|\bdiscount(?:s|ed)?\b|\breduc(?:ed|tions?)\b|\bon sale\b|\bmoney off\b/i,
  },
  { asked: /^(?:kids?|child|children|childrens)$/, said: /\bkids?\b|\bchild(?:ren)?(?:['’]s)?\b|\bunder (?:1[0-8]|[1-9])s?\b/i },
  { asked: /^(?:vouchers?|gift ?cards?|gift ?certificates?)$/, said: /\bvouchers?\b|\bgift ?cards?\b|\bgift ?certificates?\b/i },
  { asked: /^(?:refunds?|refunded)$/, said: /\brefund(?:s|ed)?\b|\bmoney back\b/i },
];

/** Whether the text says what the question's word asks for in other words ("10 % off" for "discount"). */
export function saysInOtherWords(word: string, text: string): boolean {
  const lower = word.toLowerCase();
  return EQUIVALENTS.some((e) => e.asked.test(lower) && e.said.test(text));
}
