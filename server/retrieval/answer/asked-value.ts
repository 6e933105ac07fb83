/**
 * The kind of value a visitor's question asks for, and whether a sentence states one: "how much
 * is a women's cut?" asks for a price and "Price: 52 EUR" states one; "what time do you close on
 * Saturday?" asks for a clock time, which "Saturday from 9:00 to 14:00" states; "how long does
 * delivery take?" asks for a duration, which "Parcels arrive in 2 to 3 working days" states. The
 * words that ask for the value ("cost", "time", "long") are in no answer that gives it, so a shop's
 * short price or hours line covers little of the question by its words alone: the value it states
 * is what covers them (extractive.ts). "How often do I water it?" asks for a frequency, which
 * "Water it once a week" states. English wording only.
 */
import { expectedAnswerType, words } from './answer-types.ts';

export type AskedValue = 'price' | 'clock' | 'duration' | 'frequency';

/** A question about what something costs ("how much is…", "what does … cost", "prices"). */
export const ASKS_PRICE = /\b(?:how much (?:is|are|does|do|did|will|would|for|to)|prices?|pricing|costs?|costing|expensive|cheap(?:er|est)?|fees?)\b/i;
/** An amount of money: "€12", "$ 5.99", "29.00 EUR", "25 euros", or a "Price:" line. */
export const MONEY =
  /(?:[$€£¥₹]\s?\d|\d(?:[\d.,']*\d)?\s?(?:[€£¥₹]|(?:EUR|USD|GBP|CHF|JPY|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|INR|CNY|euros?|dollars?|cents?)\b)|\bprice:\s*\S)/i;

/**
 * A question about a time of day: "what time…", "when do you open/close", "opening hours", "how
 * late are you open", "your latest appointment".
 */
const ASKS_CLOCK =
  /\bwhat time\b|\b(?:when|until when|till when|how late|how early)\b.*\b(?:open|opens|opening|close|closes|closing)\b|\b(?:opening|closing) (?:hours|times?)\b|\b(?:latest|earliest|last|first)\s+(?:appointment|booking|slot|time|collection|pick-?up)\b/i;
/** A time of day: "9:00", "18.30", "7 pm", "noon". */
const CLOCK = /\b\d{1,2}[:.][0-5]\d\b|\b\d{1,2}\s?(?:am|pm)\b|\b(?:noon|midday|midnight)\b/i;

/** "How much notice…", "how far in advance…": a duration, as "how early" is. */
const ASKS_DURATION = /\bhow much (?:notice|time)\b|\bhow (?:long|early|soon)\b|\bin advance\b|\bahead of time\b/i;

/**
 * A stretch of time: "2.5 hours", "2 working days", "a week", "three to four months" (the last
 * number before its unit, with a word such as "working" between them).
 */
const DURATION =
  /(?:\b\d+(?:[.,]\d+)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|a|an|half an?|a few|several|couple of))[\s-]+(?:(?:working|business|calendar|full|more|extra|further)[\s-]+)?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?)\b/i;

/** "How often…": how many times in a stretch of time. */
const ASKS_FREQUENCY = /\bhow often\b|\bhow frequently\b/i;
/** "once a week", "twice a day", "3 times per month", "every two days", "every week", "daily". */
const FREQUENCY =
  /\b(?:once|twice|(?:\d+|two|three|four|five|six) times)\s+(?:a|an|per|every)\s+\p{L}+|\bevery\s+(?:(?:\d+|other|two|three|four|few|couple of)\s+)?(?:days?|weeks?|months?|years?|hours?|mornings?|evenings?|nights?|weekends?)\b|\b(?:daily|weekly|fortnightly|monthly|yearly|hourly|annually)\b/iu;

/** The words that ask for each kind of value rather than name what it is about. */
const VALUE_WORDS: Record<AskedValue, RegExp> = {
  price: /^(?:prices?|pricing|costs?|costing|charges?|charging|fees?|expensive|cheap(?:er|est)?|pay)$/i,
  // "your latest appointment", "the last collection": the noun after latest/earliest/last/first asks for the time too.
  clock: /^(?:time|times|hours|latest|earliest|late|early|open|opens|opening|close|closes|closing|appointments?|bookings?|slots?|collections?|pick-?ups?)$/i,
  duration: /^(?:long|longer|early|earlier|soon|notice|advance|ahead|take|takes|last|lasts)$/i,
  frequency: /^(?:often|frequently)$/i,
};

/** The kind of value the question asks for, or null (a price first: "how much does an early booking cost"). */
export function askedValue(question: string): AskedValue | null {
  if (ASKS_PRICE.test(question) && !/\bhow much (?:notice|time)\b/i.test(question)) return 'price';
  if (ASKS_CLOCK.test(question)) return 'clock';
  if (ASKS_FREQUENCY.test(question)) return 'frequency';
  if (ASKS_DURATION.test(question) || expectedAnswerType(question) === 'duration') return 'duration';
  return null;
}

/** Whether the sentence states a value of that kind beyond the question's own words. */
export function statesValue(kind: AskedValue, sentence: string, question: string): boolean {
  switch (kind) {
    case 'price':
      return MONEY.test(sentence);
    case 'clock':
      return CLOCK.test(sentence);
    case 'frequency':
      return FREQUENCY.test(sentence);
    case 'duration': {
      const asked = new Set(words(question).map((w) => w.toLowerCase()));
      return DURATION.test(words(sentence).filter((w) => !asked.has(w.toLowerCase())).join(' '));
    }
  }
}

/** Whether a question word asks for the value's kind ("cost", "time", "long"), which a sentence stating one answers. */
export function asksForValue(kind: AskedValue, word: string): boolean {
  return VALUE_WORDS[kind].test(word);
}

/**
 * How much of the question a line stating the asked value must cover to be the answer without the
 * fitted decision, which was fitted on prose and reads a short price or hours line as too thin.
 */
export const VALUE_LINE_COVERAGE = 0.75;

/**
 * Whether the sentence an answer leads with states the value asked for about (nearly) everything
 * the question names: "Price: 18 EUR" of "Children's cut" for "how much do you charge for kids".
 * Such a line is the answer once the passages are about the question (support, abstention.ts).
 */
export function isValueLine(lead: { statesAskedValue?: boolean; coverage: number } | undefined): boolean {
  return lead !== undefined && lead.statesAskedValue === true && lead.coverage >= VALUE_LINE_COVERAGE;
}
