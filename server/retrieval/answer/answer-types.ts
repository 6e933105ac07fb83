import { contentWords, stem } from '../../language/content-terms.ts';

/**
 * What kind of answer a question expects ("who" → a name, "when" → a date, "how many" → a number,
 * "how early" → a duration) and whether a sentence holds one beyond the question's own words.
 */

export type AnswerType = 'name' | 'date' | 'number' | 'duration';

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december';
const DAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend';
const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half|several|few';
const TIME_UNITS = 'seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centur(?:y|ies)|nights?';

const DATE = new RegExp(`\\b(?:1\\d{3}|20\\d{2}|\\d{3}0s|${MONTHS}|${DAYS}s?|centur(?:y|ies)|\\d{1,2}(?:st|nd|rd|th)|bc|ad|noon|midnight|\\d{1,2}(?::\\d{2})?\\s?(?:am|pm))\\b`, 'i');
const NUMBER = new RegExp(`\\d|\\b(?:${NUMBER_WORDS})\\b`, 'i');
const DURATION = new RegExp(`(?:\\d+|\\b(?:${NUMBER_WORDS}|a|an))[\\s-]+(?:${TIME_UNITS})\\b`, 'i');

/** The answer type a question asks for, or null when its wording does not say (which, what, yes/no). */
export function expectedAnswerType(question: string): AnswerType | null {
  const q = question.toLowerCase();
  if (/\bhow (?:early|long|far ahead|far in advance|soon|much time)\b|\bin advance\b/.test(q)) return 'duration';
  if (/\bhow (?:many|much|old|far|big|large|tall|high|deep|heavy|often)\b|\bwhat (?:percent(?:age)?|number|amount|size)\b/.test(q)) return 'number';
  if (/\bwhen\b|\b(?:what|which) (?:year|years|date|day|days|month|century|decade|time)\b|\bwhat time\b/.test(q)) return 'date';
  if (/\b(?:who|whom|whose|where)\b/.test(q)) return 'name';
  return null;
}

/**
 * Whether the question asks for a fact (a wh-question: "Who…", "What year…", "Which team…")
 * rather than how to do something, whether something can be done, or for help in a statement
 * ("How do I…", "Can I…", "Is it possible…", "I'd like to…", "Splitting conversations in gmail.").
 * The fitted decision answers the two kinds under thresholds of their own (answer-decision.ts): a
 * how-to question's answer is a procedure, which the features of a fact (a name, a date beside the
 * question's words) do not read.
 */
export function asksForFact(question: string): boolean {
  const q = question.toLowerCase();
  if (HOW_TO_OR_YES_NO.test(q) || /^(?:can|could|should|does|do|is|are|will|would|did|has|have)\b/.test(q)) return false;
  return /\b(?:what|which|who|whom|whose|when|where|why|how)\b/.test(q);
}

const HOW_TO_OR_YES_NO =
  /\b(?:how (?:do|can|to|would|should|does|could|did)|is (?:it|there)|are there|i'?d like|i want|i need|possible|way to|(?:what|which)(?:'s| is| are) the (?:best |easiest |simplest )?(?:way|procedure|options?))\b/;

/**
 * Whether a sentence holds an answer of that type that the question does not already contain: a
 * year the question names does not answer "when"; a name the question names does not answer "who".
 */
export function holdsAnswerType(type: AnswerType, sentence: string, question: string): boolean {
  const asked = new Set(words(question).map((w) => w.toLowerCase()));
  const fresh = words(sentence)
    .filter((w) => !asked.has(w.toLowerCase()))
    .join(' ');
  switch (type) {
    case 'date':
      return DATE.test(fresh);
    case 'number':
      return NUMBER.test(fresh);
    case 'duration':
      return DURATION.test(fresh);
    case 'name':
      // A capitalized word after the first one: a person, a place, an organisation.
      return words(sentence)
        .slice(1)
        .some((w) => /^\p{Lu}/u.test(w) && !asked.has(w.toLowerCase()));
  }
}

/**
 * Where in the sentence (word positions) it holds an answer of that type the question does not
 * contain: each fresh date, number, duration's number or name (a capitalized word after the first).
 */
export function answerTypePositions(type: AnswerType, sentence: string, question: string): number[] {
  const asked = new Set(words(question).map((w) => w.toLowerCase()));
  const single: Record<AnswerType, (word: string, i: number) => boolean> = {
    date: (w) => DATE.test(w),
    number: (w) => NUMBER.test(w),
    duration: (w) => NUMBER.test(w) || /^an?$/i.test(w),
    name: (w, i) => i > 0 && /^\p{Lu}/u.test(w),
  };
  const positions: number[] = [];
  words(sentence).forEach((w, i) => {
    if (!asked.has(w.toLowerCase()) && single[type](w, i)) positions.push(i);
  });
  return positions;
}

/** The sentence's words as answer-types.ts reads them: what answerTypePositions' positions count. */
export function words(text: string): string[] {
  return text.match(/[\p{L}\p{N}][\p{L}\p{N}'’:-]*/gu) ?? [];
}

/**
 * What the question asks about when its wording names it: the noun after "which", "what" or
 * "how many" ("Which *team* won…", "how many *people*…"), stemmed; null otherwise.
 */
export function focusStem(question: string): string | null {
  const match = /\b(?:which|what|how many|how much)\s+([\p{L}\p{N}'-]+(?:\s+[\p{L}\p{N}'-]+)?)/iu.exec(question);
  if (!match) return null;
  const word = contentWords(match[1]!)[0];
  return word ? stem(word) : null;
}
