/**
 * The fitting behind fit-decision.ts: the logistic model of answer-decision.ts on standardized
 * features, its threshold, the bilinear direction of `meaningMatch`, and a cross-validation of
 * the whole procedure within the calibration fold. Pure functions of the examples asked.
 */
import { bilinear, type DecisionFeatures, type DecisionModel, type FeatureName } from '../../server/retrieval/answer/answer-decision.ts';
import { asksForFact } from '../../server/retrieval/answer/answer-types.ts';

/**
 * One question asked: `features` null when the support threshold abstained; `gold` whether the
 * answer given without the decision held a gold answer (SQuAD's answerable questions);
 * `product` the element-wise product of the query's vector and the best passage's vector.
 */
export type Example = {
  set: string;
  /** The fold the question was dealt to (subsets.ts; absent in dumps of fold 5 alone). */
  fold?: number;
  answerable: boolean;
  features: DecisionFeatures | null;
  gold: boolean;
  product: number[] | null;
  /** The question and the sentence the decision read (absent in older dumps): to study new features on a dump. */
  question?: string;
  sentence?: string;
};
/**
 * `otherKeep`: when set, questions that ask for no fact (how-to, yes/no) get a threshold of their
 * own, the highest that answers this share of the answerable ones (DecisionModel.otherThreshold).
 * `interactionL2`: L2 weight of the bilinear direction (default INTERACTION_L2).
 * `signed`: each feature of FEATURE_SIGNS keeps the sign of its weight that its meaning gives.
 */
export type FitOptions = { keepShare: number; maxGoldLoss: number; otherKeep?: number; interactionL2?: number; signed?: boolean };
export type Fitted = { model: DecisionModel; probability: (e: Example) => number; goldLoss: number };
/** The threshold each example is held to. */
type Thresholds = { threshold: number; otherThreshold?: number };

const PARTS = 5;

/**
 * The sign each feature's weight should have, read from what the feature means: more of the
 * question found in or beside the sentence, the expected answer type there, a lead over the other
 * passages, a closer meaning can only speak for answering; a heavy question word, the focus or the
 * answer type missing only against. A weight fitted with the other sign is a correlation of the
 * calibration data (one feature standing in for another it overlaps), and it turns into a confident
 * answer where a feature is read outside its fitted range (a shop's catalogue, docs/answers.md).
 * Features whose meaning gives no sign (`novelty`, `otherItemCoverage`, `rivalItems`,
 * `titleCoverage`, `questionTerms`) are left free.
 */
export const FEATURE_SIGNS: Partial<Record<FeatureName, 1 | -1>> = {
  coverage: 1,
  sentenceCoverage: 1,
  windowCoverage: 1,
  cosine: 1,
  rarestInSentence: 1,
  missingWeight: -1,
  focusMissing: -1,
  typeFound: 1,
  typeMissing: -1,
  sentenceMargin: 1,
  itemMargin: 1,
  itemScore: 1,
  passageScore: 1,
  pairsFound: 1,
  coverageBeyondTitle: 1,
  typeInSentence: 1,
  passageCosine: 1,
  cosineMargin: 1,
  meaningMatch: 1,
  typeNearQuestion: 1,
};
/** L2 weight of the bilinear direction: 512 products and about a thousand questions. */
export const INTERACTION_L2 = 0.05;

export function fitDecision(examples: Example[], featureNames: string[], options: FitOptions): Fitted {
  let rowsOf = examples;
  let interaction: DecisionModel['interaction'];
  if (featureNames.includes('meaningMatch')) {
    // Out-of-fold matches for the main model; the shipped direction is fitted on every question.
    const l2 = options.interactionL2 ?? INTERACTION_L2;
    rowsOf = withOutOfFoldMatch(examples, l2);
    interaction = fitInteraction(examples.filter((e) => e.features !== null), l2);
  }
  const fitted = rowsOf.filter((e) => e.features !== null);
  const rows = fitted.map((e) => featureNames.map((name) => e.features![name as keyof DecisionFeatures]));
  const labels = fitted.map((e) => (e.answerable ? 1 : 0));
  const mean = featureNames.map((_, j) => average(rows.map((r) => r[j]!)));
  const scale = featureNames.map((_, j) => Math.sqrt(average(rows.map((r) => (r[j]! - mean[j]!) ** 2))) || 1);
  const x = rows.map((r) => r.map((v, j) => (v - mean[j]!) / scale[j]!));
  const signs = options.signed ? featureNames.map((name) => FEATURE_SIGNS[name as FeatureName] ?? 0) : undefined;
  const { weights, bias } = fitLogistic(x, labels, 0.001, 3_000, signs);
  const model: DecisionModel = { features: featureNames, mean: rounded(mean), scale: rounded(scale), weights: rounded(weights), bias: round(bias), threshold: 0 };
  if (interaction) model.interaction = { weights: interaction.weights.map((w) => Math.round(w * 1e4) / 1e4), bias: round(interaction.bias) };
  const byExample = new Map(rowsOf.map((e, i) => [examples[i]!, e]));
  const probability = (e: Example) => probabilityOf(model, byExample.get(e) ?? e);
  const { threshold, otherThreshold, goldLoss } = chooseThreshold(examples, probability, options);
  // Rounded down, so the question the threshold was chosen at is still answered.
  model.threshold = floor(threshold);
  if (otherThreshold !== undefined) model.otherThreshold = floor(otherThreshold);
  return { model, probability, goldLoss };
}

/** The model's probability that the example's passages answer; -1 when the support threshold abstained. */
export function probabilityOf(model: DecisionModel, e: Example): number {
  if (e.features === null) return -1;
  let z = model.bias;
  model.features.forEach((name, j) => (z += model.weights[j]! * ((e.features![name as keyof DecisionFeatures] - model.mean[j]!) / model.scale[j]!)));
  return 1 / (1 + Math.exp(-z));
}

/** The example with `meaningMatch` under a direction fitted on the other parts. */
function withOutOfFoldMatch(examples: Example[], l2: number): Example[] {
  const out = [...examples];
  for (let part = 0; part < PARTS; part++) {
    const direction = fitInteraction(examples.filter((e, i) => i % PARTS !== part && e.features !== null), l2);
    examples.forEach((e, i) => {
      if (i % PARTS === part && e.features) out[i] = { ...e, features: { ...e.features, meaningMatch: match(direction, e) } };
    });
  }
  return out;
}

function match(direction: { weights: number[]; bias: number }, e: Example): number {
  if (!e.product) return 0;
  const ones = new Float32Array(e.product.length).fill(1);
  return direction.bias + bilinear(direction.weights, Float32Array.from(e.product), ones);
}

/**
 * A strongly regularized logistic model on the standardized products q_i·p_i; returned as weights
 * on the raw products and a bias, so that bias + Σ w_i q_i p_i is its logit.
 */
function fitInteraction(examples: Example[], l2: number): { weights: number[]; bias: number } {
  const withProduct = examples.filter((e) => e.product !== null);
  if (withProduct.length === 0) return { weights: [], bias: 0 };
  const dims = withProduct[0]!.product!.length;
  const mean = new Array<number>(dims).fill(0);
  const scale = new Array<number>(dims).fill(0);
  for (const e of withProduct) e.product!.forEach((v, j) => (mean[j]! += v / withProduct.length));
  for (const e of withProduct) e.product!.forEach((v, j) => (scale[j]! += (v - mean[j]!) ** 2 / withProduct.length));
  scale.forEach((v, j) => (scale[j] = Math.sqrt(v) || 1));
  const x = withProduct.map((e) => e.product!.map((v, j) => (v - mean[j]!) / scale[j]!));
  const { weights, bias } = fitLogistic(x, withProduct.map((e) => (e.answerable ? 1 : 0)), l2, 400);
  const raw = weights.map((w, j) => w / scale[j]!);
  return { weights: raw, bias: bias - weights.reduce((sum, w, j) => sum + (w * mean[j]!) / scale[j]!, 0) };
}

/**
 * The highest threshold that still answers `keepShare` of the answerable questions of SQuAD and
 * of StackFAQ, and loses at most `maxGoldLoss` of the SQuAD answers that held a gold answer
 * without the decision. With `otherKeep`, questions that ask for no fact are first given the
 * highest threshold that answers that share of the answerable ones among them, and the threshold
 * of fact questions is then chosen under the same bounds on every question.
 */
export function chooseThreshold(examples: Example[], probability: (e: Example) => number, options: FitOptions): Thresholds & { goldLoss: number } {
  let otherThreshold: number | undefined;
  if (options.otherKeep !== undefined) {
    const other = examples.filter((e) => e.answerable && !isFactQuestion(e)).map(probability).sort((a, b) => b - a);
    otherThreshold = Math.max(0, other[Math.ceil(options.otherKeep * other.length) - 1] ?? 0);
  }
  const held = (t: number) => (e: Example) => (otherThreshold !== undefined && !isFactQuestion(e) ? otherThreshold : t);
  const keeps = (set: string, t: number) => {
    const answerable = examples.filter((e) => e.answerable && e.set.startsWith(set));
    return answerable.filter((e) => probability(e) >= held(t)(e)).length >= options.keepShare * answerable.length;
  };
  const squadAnswerable = examples.filter((e) => e.answerable && e.set.startsWith('squad'));
  const goldLoss = (t: number) => squadAnswerable.filter((e) => e.gold && probability(e) < held(t)(e)).length / squadAnswerable.length;
  // Highest first: every bound only loosens as the threshold falls.
  const candidates = [...new Set(examples.map(probability).filter((p) => p > 0))].sort((a, b) => b - a);
  const threshold = candidates.find((t) => keeps('squad', t) && keeps('stackfaq', t) && goldLoss(t) <= options.maxGoldLoss) ?? 0;
  return { threshold, otherThreshold, goldLoss: goldLoss(threshold) };
}

/** Whether the example's question asks for a fact; a dump without questions counts every one as such. */
function isFactQuestion(e: Example): boolean {
  return e.question === undefined || asksForFact(e.question);
}

/**
 * The whole procedure (direction, model, threshold) fitted on four parts and scored on the fifth,
 * five times: the share of each set answered, under one threshold chosen on the pooled scores.
 */
export function crossValidate(examples: Example[], featureNames: string[], options: FitOptions): string {
  const scores = new Map<Example, number>();
  for (let part = 0; part < PARTS; part++) {
    const { model } = fitDecision(examples.filter((_, i) => i % PARTS !== part), featureNames, options);
    examples.forEach((e, i) => {
      if (i % PARTS !== part) return;
      const scored = e.features && model.interaction ? { ...e, features: { ...e.features, meaningMatch: match(model.interaction, e) } } : e;
      scores.set(e, probabilityOf(model, scored));
    });
  }
  const probability = (e: Example) => scores.get(e)!;
  const { threshold, otherThreshold, goldLoss } = chooseThreshold(examples, probability, options);
  const held = (e: Example) => (otherThreshold !== undefined && !isFactQuestion(e) ? otherThreshold : threshold);
  const answered = (set: string) => {
    const of = examples.filter((e) => e.set === set);
    return pct(of.filter((e) => probability(e) >= held(e)).length / of.length);
  };
  const sets = [...new Set(examples.map((e) => e.set))];
  return `${sets.map((s) => `${s} answered ${answered(s)}`).join('; ')}; gold lost ${pct(goldLoss)}`;
}

/**
 * Batch gradient descent on the log loss, both classes weighted equally, L2 weight `l2`. With
 * `signs`, a weight whose sign is given (1 or -1; 0 free) is projected back to 0 whenever a step
 * takes it across (projected gradient descent: the constrained optimum of a convex loss).
 */
function fitLogistic(x: number[][], y: number[], l2: number, steps: number, signs?: number[]): { weights: number[]; bias: number } {
  const positives = y.filter((v) => v === 1).length;
  const classWeight = (v: number) => (v === 1 ? y.length / (2 * positives) : y.length / (2 * (y.length - positives)));
  const dims = x[0]?.length ?? 0;
  const weights = new Float64Array(dims);
  let bias = 0;
  const rate = 0.1;
  const gradient = new Float64Array(dims);
  for (let step = 0; step < steps; step++) {
    gradient.fill(0);
    let gradientBias = 0;
    for (let i = 0; i < x.length; i++) {
      const row = x[i]!;
      let z = bias;
      for (let j = 0; j < dims; j++) z += row[j]! * weights[j]!;
      const error = (1 / (1 + Math.exp(-z)) - y[i]!) * classWeight(y[i]!);
      for (let j = 0; j < dims; j++) gradient[j]! += error * row[j]!;
      gradientBias += error;
    }
    for (let j = 0; j < dims; j++) {
      const next = weights[j]! - rate * (gradient[j]! / x.length + l2 * weights[j]!);
      weights[j] = signs && next * signs[j]! < 0 ? 0 : next;
    }
    bias -= (rate * gradientBias) / x.length;
  }
  return { weights: Array.from(weights), bias };
}

function average(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / (values.length || 1);
}
function round(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}
function floor(v: number): number {
  return Math.floor(v * 10_000) / 10_000;
}
function rounded(values: number[]): number[] {
  return values.map(round);
}
export function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}
