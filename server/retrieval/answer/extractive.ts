import type { KeywordLanguage } from '../../../common/contract/knowledge.ts';
import { isAnalyzed } from '../../language/keyword-language.ts';
import type { ItemSummary } from '../../domain/item-record.ts';
import type { WeightedTerm } from './question-terms.ts';
import { expectedAnswerType, focusStem, holdsAnswerType } from './answer-types.ts';
import { ASKS_PRICE, askedValue, asksForValue, MONEY, statesValue } from './asked-value.ts';
import { attributeLines, labelOf } from './attribute-text.ts';
import { answersDimension } from './dimensions.ts';
import { holdsRawData, quotable, shownText } from './quotable.ts';
import { inStatedRange } from './number-ranges.ts';
import { saysInOtherWords } from './shop-words.ts';
import { chunkSentences } from './sentences.ts';
import { contentTerms, termsMatch } from '../../language/content-terms.ts';

/** A retrieved passage the answer may quote from. */
export type CandidatePassage = {
  item: ItemSummary;
  chunkId: number;
  text: string;
  /** Where an uploaded file's passage is (search.ts Passage). */
  page?: number;
  section?: string;
  /** The item's retrieval score relative to the best item's, 0–1. */
  retrieval: number;
  /** The item's retrieval score as search gives it. */
  itemScore: number;
  /** The passage's own score from search (keyword and meaning), 0–1. */
  passageScore: number;
  /** The item's chunks before and after this one, which complete a sentence its edges cut. */
  before?: string;
  after?: string;
};

export type ScoredSentence = {
  text: string;
  /** Index into the candidate passages. */
  passage: number;
  /** The sentence's place in its passage (0 = first). */
  position: number;
  /** Share of the question's weighted words the sentence (or its item's title, at half) contains. */
  coverage: number;
  score: number;
  stems: string[];
  /** The item the passage belongs to. */
  item: number;
  /**
   * May be shown in an answer (quotable.ts); sentences that may not still count as evidence of the
   * subject. Like the text and the score, this is the sentence as its chunk holds it, which the
   * decision whether to answer reads.
   */
  quotable: boolean;
  /**
   * The whole sentence, when the chunk holds only part of it (cut at the chunk's edge), completed
   * from the item's neighbouring chunk: what an answer shows instead of the part, and whether it
   * may be shown (the whole, and the chunk's part but for its cut start).
   */
  whole?: { text: string; quotable: boolean };
  /** Holds one of the question's words other than those about cost, or its item's title does. */
  namesSubject: boolean;
  statesPrice: boolean;
  /** Holds the question's rarest word other than those about cost ("vegan" in "Which breads are vegan?"). */
  holdsRarest: boolean;
  /** Holds a duration when the question asks how early or for a day ("7 days" for "a cake for Saturday?"). */
  statesDuration?: boolean;
  /** States the value the question asks for (a price, a time of day, a duration) about its subject (asked-value.ts). */
  statesAskedValue?: boolean;
  /** Speaks to another audience than a shop's customers (wholesale, trade), or its item does. */
  otherAudience?: boolean;
  /** Its item is written for another audience (its title names it: "Trade accounts", "Wholesale"). */
  otherAudienceItem?: boolean;
};

export type SelectionOptions = { maxSentences: number; maxChars: number; keepRatio: number; maxOverlap: number };

/** Measured on SQuAD questions outside the reported subset (docs/assistant.md). */
export const DEFAULT_SELECTION: SelectionOptions = { maxSentences: 3, maxChars: 700, keepRatio: 0.75, maxOverlap: 0.5 };

/** Sentences shorter than this many words are headings or fragments, rarely answers. */
const MIN_WORDS = 4;
/** A title word stands in for a missing sentence word at half weight ("the game" in "Super Bowl 50"). */
const TITLE_CREDIT = 0.5;

/** How much a sentence that states an amount gains when the question asks what something costs. */
const PRICE_CREDIT = 0.3;

/** How much a sentence holding a duration gains when the question asks how early or how long. */
const DURATION_CREDIT = 0.2;
/** Question words about cost: a sentence sharing only these with the question is about another thing's price. */
const PRICE_STEMS = new Set(['price', 'pric', 'cost', 'fee', 'expensiv', 'cheap', 'pay']);
/**
 * A question asking for several things ("Which breads are vegan?", "What cakes do you have?",
 * "do you have any…"): each item that answers holds part of the answer.
 */
const ASKS_SEVERAL =
  /\b(?:which|what)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?(?:[\p{L}-]+\s+)?[\p{L}-]+s\s+(?:are|do|can|have|contain|come|were)\b|\b(?:list|all (?:of )?(?:the|your)|do you (?:have|sell|make|bake) any)\b/iu;
/** The share of the character cap that must be left for a later over-long sentence to be shown in part. */
const LATER_EXCERPT_ROOM = 1 / 3;
/** Items a list answer quotes at most. */
const MAX_LIST_ITEMS = 5;
/**
 * A list answer's items share the asked property ("vegan"), not always the noun ("Oat loaf" for
 * "breads"): half the best coverage is enough.
 */
const LIST_RATIO = 0.5;

/**
 * Ordering for a day ("Can I order a birthday cake for this Saturday?", "…by tomorrow?"): what
 * answers it is the lead time, a duration the question never names.
 */
const ASKS_FOR_A_DAY =
  /\b(?:order|book|reserve|get|pick (?:it )?up|collect|have)\b.*\b(?:for|by|on|until)\s+(?:this|next|the)?\s*(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|tomorrow|tonight|today|\d{1,2}(?:st|nd|rd|th)?\b)/i;
/** Orders something for a day: the day is when it is wanted, which a lead time answers. */
export function asksForADay(question: string): boolean {
  return ASKS_FOR_A_DAY.test(question);
}

/** Words of another audience than a shop's visitors: a customer's answer leaves their terms out. */
const TRADE = /\b(?:wholesale|wholesaler|trade (?:customers?|prices?|accounts?)|b2b|resellers?|distributors?|business customers?|gastronomy)\b/i;

/** What the wording of a question asks for, beyond its words; `trade`: it asks as a trade customer. */
export type QuestionIntent = { price: boolean; duration: boolean; several: boolean; trade?: boolean };

const NO_INTENT: QuestionIntent = { price: false, duration: false, several: false };

/**
 * Read from English wording only: in another language a question is matched by its words alone
 * (docs/assistant.md, "Other languages").
 */
export function questionIntent(question: string, language: KeywordLanguage = 'en'): QuestionIntent {
  if (isAnalyzed(language)) return NO_INTENT;
  return {
    price: ASKS_PRICE.test(question),
    duration: expectedAnswerType(question) === 'duration' || ASKS_FOR_A_DAY.test(question),
    several: ASKS_SEVERAL.test(question),
    trade: TRADE.test(question),
  };
}

export function scoreSentences(
  passages: CandidatePassage[],
  terms: WeightedTerm[],
  intent: QuestionIntent,
  question = '',
  language: KeywordLanguage = 'en',
): ScoredSentence[] {
  const total = terms.reduce((sum, t) => sum + t.weight, 0);
  if (total === 0) return [];
  const subjectTerms = terms.filter((t) => !PRICE_STEMS.has(t.stem));
  // In "Which breads are vegan?" the asked property is "vegan"; "breads" names the kind of answer.
  const category = intent.several ? focusStem(question) : null;
  const rarest = subjectTerms
    .filter((t) => t.stem !== category)
    .reduce<WeightedTerm | null>((r, t) => (r === null || t.weight > r.weight ? t : r), null);
  const english = !isAnalyzed(language);
  const value = english ? askedValue(question) : null;
  const valueSubject = value === null ? [] : terms.filter((t) => !asksForValue(value, t.word));
  const scored: ScoredSentence[] = [];
  passages.forEach((passage, index) => {
    const titleStems = contentTerms(headingsOf(passage), language);
    const tradeItem = TRADE.test(passage.item.title);
    const scoreSentence = (text: string, whole: string | undefined, cutStart: boolean) => {
      const stems = contentTerms(text, language);
      const statesPrice = intent.price && MONEY.test(text);
      // A sentence stating the value asked for about the question's subject ("Price: 52 EUR" of the
      // item "Women's cut", "Saturday from 9:00 to 14:00") answers the words that ask for it
      // ("cost", "what time"), and the value is its item's: the title's words count in full (asked-value.ts).
      // A shop's other words for a visitor's count as the visitor's ("10 % off" for "discount", shop-words.ts).
      // So does a range holding the number asked about ("04103 to 04357" for "04109", number-ranges.ts).
      const held = (term: WeightedTerm) =>
        stems.some((s) => termsMatch(s, term.stem, language)) || (english && saysInOtherWords(term.word, text)) || inStatedRange(term.word, text);
      const inTitle = (term: WeightedTerm) =>
        titleStems.some((s) => termsMatch(s, term.stem, language)) || (english && saysInOtherWords(term.word, passage.item.title));
      const statesAsked =
        value !== null && statesValue(value, text, question) && valueSubject.some((t) => held(t) || inTitle(t));
      let covered = 0;
      for (const term of terms) {
        if (held(term) || (statesAsked && asksForValue(value, term.word))) covered += term.weight;
        else if (inTitle(term)) covered += term.weight * (statesAsked ? 1 : TITLE_CREDIT);
      }
      // A short "Label: value" line ("Dishwasher safe: no") is an answer when its label is asked about.
      const label = labelOf(text);
      // So is one whose label measures what "how tall/heavy/long…" asks ("Height: 80 cm", dimensions.ts).
      const labelAsked =
        label !== null && (subjectTerms.some((t) => contentTerms(label, language).some((s) => termsMatch(s, t.stem, language))) || answersDimension(question, text));
      if (text.split(/\s+/).length < MIN_WORDS && !statesPrice && !labelAsked) return null;
      const coverage = covered / total;
      const statesDuration = intent.duration && holdsAnswerType('duration', text, question);
      const score =
        coverage + 0.2 * passage.retrieval + 0.1 * passage.passageScore + (statesPrice ? PRICE_CREDIT : 0) + (statesDuration ? DURATION_CREDIT : 0);
      return {
        text,
        coverage,
        score,
        stems,
        quotable: quotable(text, cutStart),
        ...(whole === undefined ? {} : { whole: { text: whole, quotable: quotable(whole) && quotable(text) } }),
        namesSubject: subjectTerms.length === 0 || subjectTerms.some((t) => [...stems, ...titleStems].some((s) => termsMatch(s, t.stem, language))),
        statesPrice,
        holdsRarest: rarest !== null && stems.some((s) => termsMatch(s, rarest.stem, language)),
        statesDuration,
        statesAskedValue: statesAsked,
        otherAudience: tradeItem || TRADE.test(text),
        otherAudienceItem: tradeItem,
      };
    };
    chunkSentences(passage.text, passage.before, passage.after).forEach((sentence, position) => {
      const text = shownText(sentence.piece);
      const whole = sentence.text === sentence.piece ? undefined : shownText(sentence.text);
      // Raw attribute data is never quoted as it is, but each attribute in it reads as a label line.
      const attributes = holdsRawData(sentence.piece) ? attributeLines(sentence.piece) : [];
      for (const line of [text, ...attributes]) {
        const entry = scoreSentence(line, line === text ? whole : undefined, line === text && sentence.cutStart);
        if (entry) scored.push({ ...entry, passage: index, item: passage.item.id, position });
      }
    });
  });
  return scored.sort((a, b) => b.score - a.score);
}

/**
 * What a passage is under: its item's title and, in an uploaded file, its section's headings ("FAQ
 * › Do you take back old batteries and light bulbs?"), which name its subject as a title does.
 */
export function headingsOf(passage: Pick<CandidatePassage, 'item' | 'section'>): string {
  return passage.section ? `${passage.item.title}\n${passage.section}` : passage.item.title;
}

/**
 * The sentences an answer quotes, each whole when a chunk's edge cut it and its neighbouring chunk
 * completes it. Only sentences that may be quoted (quotable.ts). For a question
 * asking for several things, the best sentence of each item that covers the question nearly as
 * well as the best one. Otherwise the best sentence, then the next best that score close to it,
 * say something the chosen ones do not (word overlap below `maxOverlap`) and answer the same
 * question: they name something the question names ("Delivery costs 5 EUR" does not answer what
 * a loaf costs), and a second amount of money comes only from the item the first came from.
 * Empty when no sentence may be quoted.
 */
export function selectSentences(
  scored: ScoredSentence[],
  options: SelectionOptions = DEFAULT_SELECTION,
  intent: QuestionIntent = { price: false, duration: false, several: false },
): ScoredSentence[] {
  // A sentence the chunk's edge cut is shown whole when it may be, else by the chunk's part.
  const quotablePool = scored.flatMap((s) => (s.whole?.quotable ? [{ ...s, text: s.whole.text }] : s.quotable ? [s] : []));
  // A customer's answer leaves out the terms of trade customers (a wholesale minimum), unless asked,
  // or unless only those terms speak to the question ("can I pay by invoice?" when "Invoices are
  // only available for trade accounts"): then saying so is the answer.
  const ownAudience = intent.trade
    ? quotablePool
    : onlyOtherAudienceAnswers(quotablePool, options)
      ? quotablePool.filter((s) => !s.otherAudienceItem)
      : quotablePool.filter((s) => !s.otherAudience);
  const pool = ownAudience.length > 0 ? ownAudience : quotablePool;
  const first = pool[0];
  if (!first) return [];
  if (intent.several) return listSentences(pool, options);
  const chosen = [first];
  for (const sentence of pool.slice(1)) {
    if (chosen.length >= options.maxSentences) break;
    if (sentence.score < options.keepRatio * first.score) break;
    if (!sentence.namesSubject) continue;
    if (sentence.statesPrice && sentence.item !== first.item) continue;
    if (chosen.some((c) => c.text === sentence.text || overlap(c.stems, sentence.stems) > options.maxOverlap)) continue;
    chosen.push(sentence);
  }
  return keepAskedNumber(chosen, pool, intent, options);
}

/**
 * A sentence of a page for everyone that names another audience's terms ("Invoices are only
 * available for trade accounts" on the payment page) covers the question clearly better than any
 * sentence for the asker's own: it tells every visitor what they cannot have. A page written for
 * the other audience (its title: "Trade accounts") still speaks to them alone.
 */
function onlyOtherAudienceAnswers(pool: ScoredSentence[], options: SelectionOptions): boolean {
  const best = (sentences: ScoredSentence[]) => Math.max(0, ...sentences.map((s) => s.coverage));
  const own = best(pool.filter((s) => !s.otherAudience));
  const namedOnSharedPage = best(pool.filter((s) => s.otherAudience && !s.otherAudienceItem));
  return own < options.keepRatio * namedOnSharedPage;
}

/**
 * The number the question asks for stays in the answer: when no chosen sentence states the asked
 * duration (a lead time) or price, the best sentence of the first item that does is added (in the
 * place of the last one when the answer is full).
 */
function keepAskedNumber(chosen: ScoredSentence[], pool: ScoredSentence[], intent: QuestionIntent, options: SelectionOptions): ScoredSentence[] {
  const first = chosen[0]!;
  const wanted = (s: ScoredSentence) => (intent.duration && s.statesDuration === true) || (intent.price && s.statesPrice);
  if ((!intent.duration && !intent.price) || chosen.some(wanted)) return chosen;
  const missing = pool.find((s) => s.item === first.item && wanted(s) && !chosen.some((c) => c.text === s.text));
  if (!missing) return chosen;
  return [...chosen.slice(0, options.maxSentences - 1), missing];
}

/**
 * The quoted sentences with the one stating the value the question asks for first (asked-value.ts):
 * "How much is the rye bread?" is answered by its price, then what else was chosen about it, not
 * by its description and allergens with the price last. The value stated about the question's
 * subject leads; else one of the first sentence's item stating it. English wording only.
 */
export function valueFirst(chosen: ScoredSentence[], question: string): ScoredSentence[] {
  const kind = askedValue(question);
  const first = chosen[0];
  if (kind === null || first === undefined) return chosen;
  const states = (s: ScoredSentence) => statesValue(kind, s.text, question);
  if (states(first)) return chosen;
  const lead = chosen.find((s) => s.statesAskedValue === true && states(s)) ?? chosen.find((s) => s.item === first.item && states(s));
  return lead === undefined ? chosen : [lead, ...chosen.filter((s) => s !== lead)];
}

/** One sentence per item that answers: "Which breads are vegan?" is answered by every vegan bread. */
function listSentences(pool: ScoredSentence[], options: SelectionOptions): ScoredSentence[] {
  const best = pool[0]!;
  const chosen: ScoredSentence[] = [];
  for (const sentence of pool) {
    if (chosen.length >= MAX_LIST_ITEMS) break;
    if (chosen.some((c) => c.item === sentence.item || c.text === sentence.text)) continue;
    if (sentence !== best && (sentence.coverage < LIST_RATIO * best.coverage || !sentence.namesSubject)) continue;
    if (best.holdsRarest && !sentence.holdsRarest) continue;
    chosen.push(sentence);
  }
  return chosen;
}

/** A quoted sentence with the number of the item it cites. */
export type AnswerPart = { text: string; citation: number; passage: number };

/**
 * The answer's parts: each sentence followed by " [n]", n numbering items in order of first use
 * (several passages of one item are one source). Everything shown, markers and spaces included,
 * stays within `maxChars`. A first sentence longer than that is shown by the part of it that holds
 * most of the question's words (`terms`), cut at words and marked with "…"; a later one that would
 * pass the cap is shown the same way when at least a third of the cap is left and the part holds
 * one of the question's words, and is left out otherwise.
 */
export function composeAnswer(
  chosen: ScoredSentence[],
  maxChars = DEFAULT_SELECTION.maxChars,
  terms: WeightedTerm[] = [],
  language: KeywordLanguage = 'en',
): AnswerPart[] {
  const numbers = new Map<number, number>();
  const parts: AnswerPart[] = [];
  let length = 0;
  for (const sentence of chosen) {
    const citation = numbers.get(sentence.item) ?? numbers.size + 1;
    const marker = ` [${citation}]`;
    const separator = parts.length > 0 ? 1 : 0;
    let text = sentence.text;
    if (length + separator + text.length + marker.length > maxChars) {
      const room = maxChars - length - separator - marker.length;
      if (parts.length === 0) text = excerpt(text, room, terms, language).text;
      else {
        // A later sentence is shown by its stretch around the question's words when a third of
        // the cap is left for it; otherwise it is left out.
        if (room < maxChars * LATER_EXCERPT_ROOM) continue;
        const part = excerpt(text, room, terms, language);
        if (part.weight <= 0) continue;
        text = part.text;
      }
    }
    numbers.set(sentence.item, citation);
    parts.push({ text: `${text}${marker}`, citation, passage: sentence.passage });
    length += separator + text.length + marker.length;
  }
  return parts;
}

/**
 * The stretch of whole words of an over-long sentence, within `maxChars` with its "…" marks, that
 * holds the most weight of the question's words (the earliest such stretch on a tie).
 */
function excerpt(text: string, maxChars: number, terms: WeightedTerm[], language: KeywordLanguage): { text: string; weight: number } {
  const words = text.split(/\s+/);
  const weightOf = (word: string) => {
    const [term] = contentTerms(word, language);
    return term === undefined ? 0 : terms.filter((t) => termsMatch(t.stem, term, language)).reduce((sum, t) => sum + t.weight, 0);
  };
  const weights = words.map(weightOf);
  const stretch = (start: number) => {
    let chars = start > 0 ? 2 : 0;
    let weight = 0;
    let end = start;
    // Room for the closing "…" is kept whether or not the stretch reaches the end.
    while (end < words.length && chars + words[end]!.length + 2 <= maxChars) {
      chars += words[end]!.length + 1;
      weight += weights[end]!;
      end++;
    }
    return { start, end, weight };
  };
  let best = stretch(0);
  for (let start = 1; start < words.length; start++) {
    const candidate = stretch(start);
    if (candidate.weight > best.weight) best = candidate;
  }
  if (best.weight <= 0) return { text: `${words.slice(0, best.end).join(' ')}…`, weight: 0 };
  // The stretch starts at its first matching word; step back a third of the room for context.
  let start = best.start;
  while (start < best.end - 1 && weights[start] === 0) start++;
  let before = 0;
  while (start > 0 && before + words[start - 1]!.length + 1 <= maxChars / 3) before += words[--start]!.length + 1;
  best = stretch(start);
  const shown = words.slice(best.start, best.end).join(' ');
  return { text: `${best.start > 0 ? '… ' : ''}${shown}${best.end < words.length ? '…' : ''}`, weight: best.weight };
}

/** Jaccard overlap of two sentences' content words. */
function overlap(a: string[], b: string[]): number {
  const setA = new Set(a);
  const setB = new Set(b);
  let shared = 0;
  for (const s of setA) if (setB.has(s)) shared++;
  const union = setA.size + setB.size - shared;
  return union === 0 ? 1 : shared / union;
}
