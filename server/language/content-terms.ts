import type { KeywordLanguage } from '../../common/contract/knowledge.ts';
import { type AnalyzedLanguage, isAnalyzed, keywordTerms } from './keyword-language.ts';
import { ENGLISH_STOPWORDS, queryWords } from './query-words.ts';

/*
 * The assistant reads a question and its sentences in the knowledge base's keyword language. In
 * English: the stop list and the light suffix stripper below. In another language: that language's
 * keyword reading (keyword-language.ts: its Snowball stop words and stems, diacritics
 * folded), the terms its keyword index holds, so a sentence matches the question's words as search
 * matched the passage.
 */

/**
 * Words that carry no topic: the keyword search's English stop words (Lucene's, query-words.ts)
 * plus question words and fillers, so "what year did…" is matched on its content, not on "what"
 * or "did".
 */
const STOPWORDS = new Set([
  ...ENGLISH_STOPWORDS,
  ...("its it's s also any some were am he she his her him them us one many much more most other after " +
    "before during over under name named called tell please know get got there's let type kind").split(' '),
]);

/**
 * The same words as visitors type them without the apostrophe ("whats your latest appointment",
 * "what if im running late"): read as typed they are words no passage holds, the rarest of the
 * question. Only forms that are no other English word ("ill", "id", "well", "wont" are left out).
 */
const UNMARKED_CONTRACTIONS = 'whats whos wheres whens hows im ive youre youve theyre weve thats theres dont doesnt didnt isnt arent wasnt werent havent hasnt cant couldnt wouldnt shouldnt'.split(' ');
for (const word of UNMARKED_CONTRACTIONS) STOPWORDS.add(word);

/**
 * A light English suffix stripper: enough to match "represented" with "represent" and "teams" with
 * "team" inside retrieved sentences, where a full stemmer would add nothing measurable.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /^\d/.test(word)) return word;
  const rules: Array<[RegExp, string]> = [
    [/ies$/, 'y'],
    [/(ss|us|is)$/, '$1'],
    [/([^s])s$/, '$1'],
    [/eed$/, 'ee'],
    [/(\w{3,})(ing|ed)$/, '$1'],
    [/(\w{3,})ly$/, '$1'],
  ];
  for (const [pattern, replacement] of rules) {
    if (pattern.test(word)) {
      word = word.replace(pattern, replacement);
      break;
    }
  }
  // "stopped" → "stopp" → "stop"; "located" → "locat" matches "location" through the prefix rule.
  return word.replace(/([^aeiouls])\1$/, '$1').replace(/e$/, '');
}

/**
 * Question words and fillers of the other languages that their Snowball stop lists keep ("wann",
 * "wie lange", "combien", "puis-je"): like the English ones above, they say what kind of answer is
 * asked, not where it is, and would otherwise weigh as the rarest words of a question. Matched by
 * their terms, so inflections and missing accents count too.
 */
const QUESTION_WORDS: Record<AnalyzedLanguage, string> = {
  de: 'wann wer woher wohin warum wieso weshalb wieviel wieviele viele lange oft gibt könnt habt bitte',
  fr: 'quand comment quoi pourquoi combien temps longtemps puis peut pouvez svp',
  es: '', // Snowball's Spanish stop list holds its question words already.
  it: 'quando cosa quale quali quanto quanta quanti quante tempo posso potete',
  nl: 'wanneer waarom welke welk hoeveel lang jullie',
  pt: 'onde porque quais quanto quanta quantos quantas tempo posso pode',
  sv: 'många länge finns',
};
const questionTerms = new Map<AnalyzedLanguage, Set<string>>();

function isQuestionWord(language: AnalyzedLanguage, term: string): boolean {
  let terms = questionTerms.get(language);
  if (!terms) questionTerms.set(language, (terms = new Set(keywordTerms(language, QUESTION_WORDS[language]))));
  return terms.has(term);
}

/**
 * The content words of a question, lower-cased, in order (duplicates kept): in another language,
 * the words its keyword reading keeps, but for its question words.
 */
export function contentWords(text: string, language: KeywordLanguage = 'en'): string[] {
  const words = queryWords(text);
  if (!isAnalyzed(language)) return words.filter((w) => !STOPWORDS.has(w));
  return words.filter((w) => {
    const [term] = keywordTerms(language, w);
    return term !== undefined && !isQuestionWord(language, term);
  });
}

/** The term a content word is matched by: its English stem, or its term in the language. */
export function wordTerm(word: string, language: KeywordLanguage = 'en'): string {
  if (!isAnalyzed(language)) return stem(word);
  return keywordTerms(language, word)[0] ?? word;
}

/** The content words of a text, stemmed. */
export function contentTerms(text: string, language: KeywordLanguage = 'en'): string[] {
  if (!isAnalyzed(language)) return contentWords(text).map(stem);
  return keywordTerms(language, text);
}

/** Languages that write compounds as one word, naming the kind last ("Stirnlampe" is a "Lampe"). */
const COMPOUNDING = new Set<KeywordLanguage>(['de', 'nl', 'sv']);

/**
 * Whether two stems match: equal, or sharing a long enough prefix ("locat" / "location"). Snowball
 * stems are shorter than the English stripper's and keep some verb endings ("kost" of "kosten",
 * "kostet"), so in other languages 4 letters are enough; in a compounding language a compound
 * matches the word it ends with ("wandersock" / "sock").
 */
export function termsMatch(a: string, b: string, language: KeywordLanguage = 'en'): boolean {
  if (a === b) return true;
  const shorter = a.length < b.length ? a : b;
  const longer = shorter === a ? b : a;
  if (!isAnalyzed(language)) return shorter.length >= 5 && longer.startsWith(shorter);
  return shorter.length >= 4 && (longer.startsWith(shorter) || (COMPOUNDING.has(language) && longer.endsWith(shorter)));
}
