/**
 * When to say "not in the knowledge base". The support of a question is how much of it the best
 * retrieved sentence covers (its words weighted by rarity, see extractive.ts), blended with how
 * close in meaning the best retrieved passage is (cosine of the query and passage vectors). Both
 * weights and thresholds were calibrated on questions with and without an answer in the knowledge
 * base; docs/assistant.md gives the procedure and the figures.
 */
export const SUPPORT_WEIGHTS = { coverage: 0.5, cosine: 0.5 };
export const ABSTAIN_BELOW = 0.45;
/**
 * The support a question asked on an item's page needs from that item's own content alone: the
 * visitor is looking at it, so what its content covers of the question is weighed against its
 * own sentences, not against the whole knowledge base's (bench:product-qa's calibration fold).
 */
export const PAGE_ABSTAIN_BELOW = 0.35;
/** Without a query vector (keyword mode, or no embedding model active yet) coverage alone decides. */
export const ABSTAIN_BELOW_COVERAGE_ONLY = 0.35;

export type Support = { score: number; threshold: number };

export function support(bestCoverage: number, bestCosine: number | null, threshold = ABSTAIN_BELOW): Support {
  if (bestCosine === null) return { score: bestCoverage, threshold: Math.min(threshold, ABSTAIN_BELOW_COVERAGE_ONLY) };
  return { score: SUPPORT_WEIGHTS.coverage * bestCoverage + SUPPORT_WEIGHTS.cosine * Math.max(0, bestCosine), threshold };
}

export function supportScore(bestCoverage: number, bestCosine: number | null): number {
  return support(bestCoverage, bestCosine).score;
}

/**
 * A question asking whether ("Can I pay with Bitcoin?", "Do you deliver to Hamburg?", "Are you
 * open on Sunday?"), with no "what/which/how…" part asking for a fact beside it.
 */
const ASKS_WHETHER = /^\s*(?:(?:do|does|did|can|could|will|would|may|are|is|was|were|have|has|should)\b)/i;
const ASKS_FACT_TOO = /\b(?:what|which|who|whom|whose|when|where|why|how)\b/i;
/** Words that frame a yes/no question rather than name what it is about ("Is it possible to get…"). */
const FRAMING = /^(?:possible|possibly|get|getting|buy|buying|order|ordering|available|offer|sell|make|find|book|use|need|want|like|please|also|any|anything|somewhere|way)$/i;
/**
 * The main verb of a yes/no question sits right after its auxiliary and a pronoun subject ("can you
 * COPY…", "does it CONTAIN…", "can this GO…"): it says what is done, not what it is done to, and a
 * shop's content says it with other verbs ("we take", "cannot be copied"). English word order, not
 * a word list: a form of "be" is followed by what is said of the subject ("is it dishwasher safe"),
 * so only other auxiliaries count.
 */
const MAIN_VERB = /^\s*(?:do|does|did|can|could|will|would|may|might|shall|should)\s+(?:i|you|we|they|it|this|that|these|those|he|she)\s+([a-z][a-z'-]*)/i;

/** The question's main verb (lower case), or null when its order is not auxiliary, pronoun, verb. */
export function mainVerb(question: string): string | null {
  return MAIN_VERB.exec(question)?.[1]?.toLowerCase() ?? null;
}

/** The words of a question that name what it asks about: neither framing nor its main verb. */
export function askedTerms<T extends { word: string }>(question: string, terms: T[]): T[] {
  const verb = mainVerb(question);
  return terms.filter((t) => !FRAMING.test(t.word) && t.word !== verb);
}

/** A question word this close to the rarest one's weight is a key term too. */
const KEY_TERM_SHARE = 0.8;
/** Shorter numbers are sizes and counts ("26 cm", answered by "24 to 28 cm"); longer ones are postcodes and ids. */
const KEY_NUMBER = /^\d{4,}$/;

/**
 * A yes/no question with more words than this is read by the decision alone: in a long question
 * ("Is it possible to have more than one Dropbox account on the same computer?") a word the
 * content lacks is mostly phrasing, while in a short one ("Can I pay with Bitcoin?") each word is
 * what is asked. Measured on StackFAQ's report fold (docs/answers.md).
 */
const MAX_KEYED_WORDS = 4;

/** Days and months: what a yes/no question about a day asks the quote to say ("Do you deliver on Sundays?"). */
const WHEN_WORD = /^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|holiday|january|february|march|april|may|june|july|august|september|october|november|december)s?$/i;

/**
 * The key terms of a yes/no question (its rarest words: "bitcoin", "hamburg", "sunday", a
 * postcode) that nothing it would quote holds, nor the quoted items' titles, and that either no
 * retrieved passage holds at all or name a day (a quote about delivery that does not name Sunday
 * does not say delivery comes on Sundays, though the opening hours name it). Any such term means
 * the content does not say: "We accept cards, Apple Pay and Google Pay" is no "yes" to Bitcoin.
 * The question's main verb is never reported missing ("do you accept…": the content says "we take…").
 * A word some other passage holds ("bread" in "Is it possible to get gluten-free bread?", answered
 * by "gluten-free loaves") is not counted. Empty for other questions and when every key term is there.
 */
export function missingKeyTerms(
  question: string,
  terms: { stem: string; word: string; weight: number }[],
  quoted: { stems: string[]; titleStems: string[] }[],
  retrieved: string[][],
  matches: (a: string, b: string) => boolean,
): string[] {
  if (!ASKS_WHETHER.test(question) || ASKS_FACT_TOO.test(question) || quoted.length === 0) return [];
  // The verb still counts toward the question's length and its rarest weight (the measured rule);
  // it is only never reported missing.
  const asked = terms.filter((t) => !FRAMING.test(t.word));
  if (asked.length > MAX_KEYED_WORDS) return [];
  const keyCandidates = asked.filter((t) => !/^\d+$/.test(t.word) || KEY_NUMBER.test(t.word));
  const rarest = Math.max(0, ...keyCandidates.map((t) => t.weight));
  const verb = mainVerb(question);
  const same = (a: string, b: string) => matches(a, b) || matches(yForm(a), yForm(b));
  const held = (stem: string) => quoted.some((q) => [...q.stems, ...q.titleStems].some((s) => same(s, stem)));
  const anywhere = (stem: string) => retrieved.some((stems) => stems.some((s) => same(s, stem)));
  return keyCandidates
    .filter((t) => t.word !== verb && t.weight >= KEY_TERM_SHARE * rarest && !held(t.stem) && (WHEN_WORD.test(t.word) || KEY_NUMBER.test(t.word) || !anywhere(t.stem)))
    .map((t) => t.word);
}

/**
 * The English stripper reads "copied" as "copi" and leaves "copy" as it is: a key term matches
 * either form ("can you copy…" is answered by "…cannot be copied").
 */
function yForm(stem: string): string {
  return stem.length > 3 ? stem.replace(/i$/, 'y') : stem;
}
