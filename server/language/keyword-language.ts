import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';
import { stopwords as dutchStopwords } from '@orama/stopwords/dutch';
import { stopwords as frenchStopwords } from '@orama/stopwords/french';
import { stopwords as germanStopwords } from '@orama/stopwords/german';
import { stopwords as italianStopwords } from '@orama/stopwords/italian';
import { stopwords as portugueseStopwords } from '@orama/stopwords/portuguese';
import { stopwords as spanishStopwords } from '@orama/stopwords/spanish';
import { stopwords as swedishStopwords } from '@orama/stopwords/swedish';
import type { KeywordLanguage } from '../../common/contract/knowledge.ts';
import { indexWords } from './index-words.ts';

/**
 * How the keyword index reads a knowledge base's texts in a language other than English: words
 * (letters, digits and marks, as FTS5's unicode61 tokenizer cuts them), lower case, diacritics
 * folded, the language's Snowball stop words dropped, each word reduced to its Snowball stem.
 * English keeps FTS5's own `porter unicode61 remove_diacritics 2` tokenizer (storage/migrations/0006-keyword-scope.sql);
 * the other languages' keyword tables hold these terms, joined by spaces, under a tokenizer that
 * changes nothing more (storage/keyword-rows.ts), and queries are read the same way.
 *
 * Diacritics are folded before stemming, in texts and queries alike, so a word typed without its
 * accents ("Offnungszeiten", "electricite") is the same term as the word written with them, and
 * the stemmer sees one spelling of each word. Swedish keeps å, ä and ö: they are letters of their
 * own there (får and far, sheep and father), typed on every Swedish keyboard; its other accents
 * (café) fold. Ligatures and ß are spelt out (œ → oe, æ → ae, ß → ss, ø → o).
 */
export type AnalyzedLanguage = Exclude<KeywordLanguage, 'en'>;

type Analysis = { stem: (word: string) => string; stopwords: readonly string[]; keep: string };

const ANALYSES: Record<AnalyzedLanguage, Analysis> = {
  de: { stem: german, stopwords: germanStopwords, keep: '' },
  fr: { stem: french, stopwords: frenchStopwords, keep: '' },
  es: { stem: spanish, stopwords: spanishStopwords, keep: '' },
  it: { stem: italian, stopwords: italianStopwords, keep: '' },
  nl: { stem: dutch, stopwords: dutchStopwords, keep: '' },
  pt: { stem: portuguese, stopwords: portugueseStopwords, keep: '' },
  sv: { stem: swedish, stopwords: swedishStopwords, keep: 'åäö' },
};

const SPELT_OUT: Record<string, string> = { œ: 'oe', æ: 'ae', ß: 'ss', ø: 'o' };
/** Stems remembered per language; past this the cache starts again (a few MB at most). */
const CACHE_LIMIT = 100_000;

export function isAnalyzed(language: KeywordLanguage): language is AnalyzedLanguage {
  return language !== 'en';
}

/** A language's reading of words: stop words and stems, remembered per folded word. */
class LanguageAnalyzer {
  private readonly stopwords: Set<string>;
  private readonly stems = new Map<string, string | null>();

  constructor(private readonly analysis: Analysis) {
    this.stopwords = new Set(analysis.stopwords.map((w) => this.fold(w.toLowerCase())));
  }

  /** The term of one lower-case word, or null for a stop word. */
  term(word: string): string | null {
    let term = this.stems.get(word);
    if (term === undefined) {
      const folded = this.fold(word);
      term = this.stopwords.has(folded) ? null : this.analysis.stem(folded);
      if (this.stems.size >= CACHE_LIMIT) this.stems.clear();
      this.stems.set(word, term);
    }
    return term;
  }

  private fold(word: string): string {
    let folded = '';
    for (const letter of word) {
      if (this.analysis.keep.includes(letter)) folded += letter;
      else folded += SPELT_OUT[letter] ?? letter.normalize('NFD').replace(/\p{M}/gu, '');
    }
    return folded;
  }
}

const analyzers = new Map<AnalyzedLanguage, LanguageAnalyzer>();

function analyzer(language: AnalyzedLanguage): LanguageAnalyzer {
  let found = analyzers.get(language);
  if (!found) analyzers.set(language, (found = new LanguageAnalyzer(ANALYSES[language])));
  return found;
}

/** The terms of a text in a language, in order and repeated as they occur, stop words left out. */
export function keywordTerms(language: AnalyzedLanguage, text: string): string[] {
  const words = indexWords(text);
  const reader = analyzer(language);
  const terms: string[] = [];
  for (const word of words) {
    const term = reader.term(word.normalize('NFC'));
    if (term) terms.push(term);
  }
  return terms;
}

/** What a keyword table of the language holds for a text: its terms joined by spaces. */
export function keywordText(language: AnalyzedLanguage, text: string): string {
  return keywordTerms(language, text).join(' ');
}
