/**
 * Whether the retrieved passages answer the question, not only whether they are about it. The
 * support threshold (abstention.ts) tells on-topic from off-topic; a question about the right
 * article whose answer is missing ("Who did King David I marry?" against the paragraphs about his
 * brothers) passes it. This decision reads what an answering sentence has: the question's rare
 * words and its focus in or beside it, the kind of answer the question expects (a name, a date, a
 * number, a duration) and whether it stands beside the question's subject, words of its own beyond
 * the question's, a lead over the next item, and what the embedder's vectors (the query's and the
 * passages', already fetched by retrieval; nothing is embedded here) say of the quoted passage.
 * The features are combined by a logistic model whose weights are fitted on data by
 * bench/answer/fit-decision.ts and shipped in answer-decision-weights.json, with a threshold for
 * questions that ask for a fact and, when fitted, another for how-to and yes/no questions.
 */
import weights from './answer-decision-weights.json' with { type: 'json' };
import { type AnswerType, answerTypePositions, asksForFact, expectedAnswerType, focusStem, holdsAnswerType, words } from './answer-types.ts';
import type { CandidatePassage, ScoredSentence } from './extractive.ts';
import type { WeightedTerm } from './question-terms.ts';
import { contentTerms, termsMatch } from '../../language/content-terms.ts';

export const FEATURE_NAMES = [
  'coverage',
  'sentenceCoverage',
  'windowCoverage',
  'cosine',
  'rarestInSentence',
  'missingWeight',
  'focusMissing',
  'typeFound',
  'typeMissing',
  'novelty',
  'sentenceMargin',
  'itemMargin',
  'itemScore',
  'passageScore',
  'otherItemCoverage',
  'pairsFound',
  'rivalItems',
  'titleCoverage',
  'questionTerms',
  'coverageBeyondTitle',
  'typeInSentence',
  'passageCosine',
  'cosineMargin',
  'meaningMatch',
  'typeNearQuestion',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];
export type DecisionFeatures = Record<FeatureName, number>;

export type DecisionModel = {
  features: readonly string[];
  /** Standardization of each feature, as fitted: (x - mean) / scale. */
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
  /** Answer when the probability that the passages answer is at least this. */
  threshold: number;
  /**
   * The threshold for questions that do not ask for a fact (how-to, yes/no, a request:
   * `asksForFact` false), chosen apart so that FAQ-like questions stay answered while fact
   * questions are held to the stricter one; absent: `threshold` for every question.
   */
  otherThreshold?: number;
  /**
   * The direction `meaningMatch` projects the element-wise product of the query's vector and the
   * best sentence's passage vector on (a diagonal bilinear similarity fitted on the calibration
   * fold); absent in a model fitted without it.
   */
  interaction?: { weights: number[]; bias: number };
};

export const FITTED_MODEL: DecisionModel = weights;

export type AnalysisForDecision = {
  question: string;
  terms: WeightedTerm[];
  scored: ScoredSentence[];
  candidates: CandidatePassage[];
  bestCosine: number | null;
  /** What the features of meaning read; null in keyword mode (no query vector). */
  vectors?: PassageVectors | null;
};

/** The query's vector and each candidate passage's vector (null where it has none yet). */
export type PassageVectors = { query: Float32Array; passages: (Float32Array | null)[] };

/** The features of the best sentence; null when nothing was scored. */
export function decisionFeatures(a: AnalysisForDecision, model: DecisionModel = FITTED_MODEL): DecisionFeatures | null {
  const best = a.scored.find((s) => s.quotable);
  if (!best) return null;
  const total = a.terms.reduce((sum, t) => sum + t.weight, 0) || 1;
  const window = a.scored.filter((s) => s.passage === best.passage && Math.abs(s.position - best.position) <= 1);
  const windowStems = window.flatMap((s) => s.stems);
  const title = contentTerms(a.candidates[best.passage]!.item.title);
  const has = (stems: string[], term: string) => stems.some((s) => termsMatch(s, term));

  const covered = (stems: string[]) => a.terms.reduce((sum, t) => sum + (has(stems, t.stem) ? t.weight : 0), 0) / total;
  const rarest = a.terms.reduce((r, t) => (t.weight > r.weight ? t : r), a.terms[0]!);
  const missing = a.terms.filter((t) => !has(best.stems, t.stem) && !has(title, t.stem));
  const focus = focusStem(a.question);
  const type = expectedAnswerType(a.question);
  const typeFound = type !== null && window.some((s) => holdsAnswerType(type, s.text, a.question));
  const questionStems = a.terms.map((t) => t.stem);
  const own = best.stems.filter((s) => !has(questionStems, s));

  const bestItem = a.candidates[best.passage]!.item.id;
  const otherItem = a.scored.find((s) => a.candidates[s.passage]!.item.id !== bestItem);
  const secondRetrieval = Math.max(0, ...a.candidates.filter((c) => c.item.id !== bestItem).map((c) => c.retrieval));

  return {
    coverage: best.coverage,
    sentenceCoverage: covered(best.stems),
    windowCoverage: covered([...windowStems, ...title]),
    cosine: Math.max(0, a.bestCosine ?? 0),
    rarestInSentence: rarest && has(best.stems, rarest.stem) ? 1 : 0,
    missingWeight: Math.max(0, ...missing.map((t) => t.weight)) / total,
    focusMissing: focus !== null && !has([...windowStems, ...title], focus) ? 1 : 0,
    typeFound: typeFound ? 1 : 0,
    typeMissing: type !== null && !typeFound ? 1 : 0,
    novelty: best.stems.length === 0 ? 0 : own.length / best.stems.length,
    sentenceMargin: otherItem ? Math.max(0, best.score - otherItem.score) : 1,
    itemMargin: 1 - secondRetrieval,
    itemScore: a.candidates[best.passage]!.itemScore,
    passageScore: a.candidates[best.passage]!.passageScore,
    otherItemCoverage: otherItem?.coverage ?? 0,
    pairsFound: pairsFound(a.question, best.stems),
    rivalItems: rivalItems(a, best),
    titleCoverage: covered(title),
    questionTerms: Math.log(1 + a.terms.length),
    coverageBeyondTitle: coverageBeyondTitle(a.terms, [...windowStems], title),
    typeInSentence: type !== null && holdsAnswerType(type, best.text, a.question) ? 1 : 0,
    typeNearQuestion: type === null ? 0 : typeNearQuestion(type, best.text, a),
    ...meaningFeatures(a, best, model.interaction),
  };
}

/**
 * What the embedder's vectors say of the best sentence's passage: its cosine to the query, its
 * lead over the closest passage of another item, and the fitted bilinear match (`interaction`)
 * of the query with it. All 0 without vectors (keyword mode).
 */
function meaningFeatures(
  a: AnalysisForDecision,
  best: ScoredSentence,
  interaction: DecisionModel['interaction'],
): Pick<DecisionFeatures, 'passageCosine' | 'cosineMargin' | 'meaningMatch'> {
  const vectors = a.vectors;
  const own = vectors?.passages[best.passage];
  if (!vectors || !own) return { passageCosine: 0, cosineMargin: 0, meaningMatch: 0 };
  const passageCosine = dot(vectors.query, own);
  let other = -1;
  vectors.passages.forEach((v, i) => {
    if (v && a.candidates[i]!.item.id !== a.candidates[best.passage]!.item.id) other = Math.max(other, dot(vectors.query, v));
  });
  return {
    passageCosine,
    cosineMargin: other < 0 ? passageCosine : passageCosine - other,
    meaningMatch: interaction ? interaction.bias + bilinear(interaction.weights, vectors.query, own) : 0,
  };
}

/** The dot product: the cosine of two unit vectors, as the embedder makes them. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Σ w_i q_i p_i: how well the query and the passage agree along the fitted directions. */
export function bilinear(w: ArrayLike<number>, q: Float32Array, p: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < q.length; i++) sum += (w[i] ?? 0) * q[i]! * p[i]!;
  return sum;
}

/** Words between an answer of the expected type and the question's words within which they read as one clause. */
const NEAR_WORDS = 6;

/**
 * Whether an answer of the expected type stands beside the question's own subject in the
 * sentence: 1 when a fresh name, date or number lies within NEAR_WORDS words of one of the
 * question's two heaviest words, fading with the distance; 0 when none does. "His brother
 * Alexander married Sybilla" holds names, but far from "David".
 */
function typeNearQuestion(type: AnswerType, sentence: string, a: AnalysisForDecision): number {
  const answers = answerTypePositions(type, sentence, a.question);
  if (answers.length === 0) return 0;
  const heaviest = [...a.terms].sort((x, y) => y.weight - x.weight).slice(0, 2);
  const subject = words(sentence).flatMap((w, i) => {
    const [term] = contentTerms(w);
    return term !== undefined && heaviest.some((t) => termsMatch(term, t.stem)) ? [i] : [];
  });
  let nearest = Infinity;
  for (const p of answers) for (const q of subject) nearest = Math.min(nearest, Math.abs(p - q));
  return nearest > NEAR_WORDS ? 0 : 1 - (nearest - 1) / NEAR_WORDS;
}

/**
 * Share of the question's adjacent content-word pairs ("King David", "Super Bowl") that stand
 * together in the sentence too: the sentence is about the same subject, not a neighbour of it.
 */
function pairsFound(question: string, sentenceStems: string[]): number {
  const q = contentTerms(question);
  if (q.length < 2) return 1;
  let found = 0;
  for (let i = 0; i + 1 < q.length; i++) {
    const [a, b] = [q[i]!, q[i + 1]!];
    if (sentenceStems.some((s, j) => termsMatch(s, a) && sentenceStems[j + 1] !== undefined && termsMatch(sentenceStems[j + 1]!, b))) found++;
  }
  return found / (q.length - 1);
}

/**
 * How much of what the question asks beyond its article's name the sentence and its neighbours
 * hold: every paragraph of "Super Bowl 50" names the game, only the answering one names the rest.
 */
function coverageBeyondTitle(terms: WeightedTerm[], stems: string[], title: string[]): number {
  const beyond = terms.filter((t) => !title.some((s) => termsMatch(s, t.stem)));
  const total = beyond.reduce((sum, t) => sum + t.weight, 0);
  if (total === 0) return 1;
  return beyond.reduce((sum, t) => sum + (stems.some((s) => termsMatch(s, t.stem)) ? t.weight : 0), 0) / total;
}

/** Other items whose best sentence covers the question nearly as well (0.8 ×): no passage stands out. */
function rivalItems(a: AnalysisForDecision, best: ScoredSentence): number {
  const rivals = new Set<number>();
  for (const s of a.scored) if (s.item !== best.item && s.coverage >= 0.8 * best.coverage) rivals.add(s.item);
  return rivals.size;
}

/** The probability, under the fitted model, that the best sentence answers the question. */
export function answerProbability(features: DecisionFeatures, model: DecisionModel = FITTED_MODEL): number {
  let z = model.bias;
  model.features.forEach((name, i) => {
    z += model.weights[i]! * ((features[name as FeatureName] - model.mean[i]!) / model.scale[i]!);
  });
  return 1 / (1 + Math.exp(-z));
}

export function passagesAnswer(a: AnalysisForDecision, model: DecisionModel = FITTED_MODEL): boolean {
  const features = decisionFeatures(a, model);
  return features !== null && answerProbability(features, model) >= thresholdFor(a.question, model);
}

/** The threshold the question is held to: `otherThreshold` for a question that asks for no fact, when the model has one. */
export function thresholdFor(question: string, model: DecisionModel): number {
  return model.otherThreshold !== undefined && !asksForFact(question) ? model.otherThreshold : model.threshold;
}
