/**
 * Fits the decision whether the retrieved passages answer a question
 * (server/retrieval/answer/answer-decision.ts) on the calibration fold, and writes its weights to
 * server/retrieval/answer/answer-decision-weights.json.
 *
 * Answerable: SQuAD and StackFAQ questions against their own knowledge bases, and those whose gold
 * paragraph (thread) stayed in the hold-out knowledge bases. Unanswerable: those whose gold
 * paragraph (thread) was left out of the hold-out knowledge bases (holdout-sets.ts): on-topic,
 * without an answer. Only questions the support threshold lets through are fitted on, since the
 * decision is taken after it. A logistic model on standardized features, both classes weighted
 * equally; the threshold is the highest that still answers `--keep` of the answerable questions
 * of SQuAD and of StackFAQ and abstains on at most `--max-gold-loss` of the answerable SQuAD
 * questions whose answer held a gold answer without the decision (abstentions by the support
 * threshold count against the share answered).
 *
 * Usage: node --import tsx bench/answer/fit-decision.ts --data-dir DIR [--limit 400] [--keep 0.92] [--max-gold-loss 0.012] [--dump FILE]
 *   DIR is a data folder kept by `npm run bench:answers -- --keep`; missing hold-out sets are indexed.
 *   --dump writes every question's set, label and features as JSON, to study the features.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { type DecisionFeatures, decisionFeatures, type DecisionModel, FEATURE_NAMES } from '../../server/retrieval/answer/answer-decision.ts';
import { Assistant, DEFAULT_TUNING } from '../../server/retrieval/answer/assistant.ts';
import { TermStatsRepo } from '../../server/storage/term-stats-repo.ts';
import { containsGold } from './gold.ts';
import { faqHoldoutQuestions, squadHoldoutQuestions } from './holdout-sets.ts';
import { startIndexedSets } from './indexed-sets.ts';
import type { Question } from './run-questions.ts';
import { CALIBRATION_FOLD, faqQuestions, squadQuestions } from './subsets.ts';

const WEIGHTS_FILE = new URL('../../server/retrieval/answer/answer-decision-weights.json', import.meta.url);

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    limit: { type: 'string', default: '400' },
    keep: { type: 'string', default: '0.92' },
    'max-gold-loss': { type: 'string', default: '0.012' },
    dump: { type: 'string' },
  },
});
const limit = Number(values.limit);
const keepShare = Number(values.keep);
const maxGoldLoss = Number(values['max-gold-loss']);
const log = (line: string) => process.stderr.write(`[fit-decision] ${line}\n`);

const sets = await startIndexedSets({ dataDir: values['data-dir'], keep: true, log });
const { services } = sets.server;
const gateOnly = new Assistant(services.search, services.embedding, new TermStatsRepo(services.db), services.llmSettings, {
  ...DEFAULT_TUNING,
  decision: null,
});
const signal = new AbortController().signal;

/** `gold`: the answer given without the decision holds a gold answer (SQuAD's answerable questions). */
type Example = { set: string; answerable: boolean; features: DecisionFeatures | null; gold: boolean };
const examples: Example[] = [];
async function collect(set: string, kb: string, questions: Question[], answerable: boolean) {
  for (const q of questions) {
    const analysis = await gateOnly.analyze(kb, { question: q.text }, signal);
    // Abstained on by the support threshold: no decision to fit, but it counts as not answered.
    const features = gateOnly.answers(analysis) ? decisionFeatures(analysis) : null;
    const gold = answerable && q.goldAnswers !== null && containsGold((await gateOnly.ask(kb, { question: q.text }, { signal })).answer, q.goldAnswers);
    examples.push({ set, answerable, features, gold });
  }
  log(`${set}: ${questions.length} questions`);
}

try {
  const squadHoldout = squadHoldoutQuestions(CALIBRATION_FOLD, limit);
  const faqHoldout = faqHoldoutQuestions(CALIBRATION_FOLD, limit);
  await collect('squad', sets.squad.knowledgeBaseId, squadQuestions(CALIBRATION_FOLD, limit), true);
  await collect('squad hold-out answerable', sets.squadHoldout.knowledgeBaseId, squadHoldout.answerable, true);
  await collect('squad hold-out unanswerable', sets.squadHoldout.knowledgeBaseId, squadHoldout.unanswerable, false);
  await collect('stackfaq', sets.stackfaq.knowledgeBaseId, faqQuestions(CALIBRATION_FOLD, limit), true);
  await collect('stackfaq hold-out answerable', sets.stackfaqHoldout.knowledgeBaseId, faqHoldout.answerable, true);
  await collect('stackfaq hold-out unanswerable', sets.stackfaqHoldout.knowledgeBaseId, faqHoldout.unanswerable, false);
} finally {
  await sets.close();
}

if (values.dump) fs.writeFileSync(values.dump, JSON.stringify(examples));
const fitted = examples.filter((e): e is Example & { features: DecisionFeatures } => e.features !== null);
const rows = fitted.map((e) => FEATURE_NAMES.map((name) => e.features[name]));
const labels = fitted.map((e) => (e.answerable ? 1 : 0));
const mean = FEATURE_NAMES.map((_, j) => average(rows.map((r) => r[j]!)));
const scale = FEATURE_NAMES.map((_, j) => Math.sqrt(average(rows.map((r) => (r[j]! - mean[j]!) ** 2))) || 1);
const x = rows.map((r) => r.map((v, j) => (v - mean[j]!) / scale[j]!));
const { weights, bias } = fitLogistic(x, labels);
const model: DecisionModel = { features: [...FEATURE_NAMES], mean: rounded(mean), scale: rounded(scale), weights: rounded(weights), bias: round(bias), threshold: 0 };
const probability = (e: Example) => {
  if (e.features === null) return -1;
  let z = model.bias;
  FEATURE_NAMES.forEach((name, j) => (z += model.weights[j]! * ((e.features![name] - model.mean[j]!) / model.scale[j]!)));
  return 1 / (1 + Math.exp(-z));
};

// The highest threshold that still answers `keepShare` of the answerable questions of each set
// and loses at most `maxGoldLoss` of the SQuAD answers that held a gold answer without the decision.
const thresholdKeeping = (set: string) => {
  const answerable = examples.filter((e) => e.answerable && e.set.startsWith(set)).map(probability).sort((a, b) => b - a);
  return answerable[Math.ceil(keepShare * answerable.length) - 1] ?? 0;
};
const squadAnswerable = examples.filter((e) => e.answerable && e.set.startsWith('squad'));
const goldLoss = (threshold: number) => squadAnswerable.filter((e) => e.gold && probability(e) < threshold).length / squadAnswerable.length;
let threshold = Math.max(0, Math.min(thresholdKeeping('squad'), thresholdKeeping('stackfaq')));
while (threshold > 0 && goldLoss(threshold) > maxGoldLoss) threshold -= 0.001;
model.threshold = round(Math.max(0, threshold));

fs.writeFileSync(WEIGHTS_FILE, `${JSON.stringify(model, null, 2)}\n`);
const lines = [`fitted on ${fitted.length} questions the support threshold lets through (${examples.length} asked), fold ${CALIBRATION_FOLD}`];
for (const set of [...new Set(examples.map((e) => e.set))]) {
  const of = examples.filter((e) => e.set === set);
  const answered = of.filter((e) => probability(e) >= model.threshold).length;
  const gate = of.filter((e) => e.features !== null).length;
  lines.push(`${set}: ${of.length} questions, answered by the support threshold ${pct(gate / of.length)}, with the decision ${pct(answered / of.length)}`);
}
lines.push(`SQuAD answers holding a gold answer lost to the decision: ${pct(goldLoss(model.threshold))} of the answerable questions`);
lines.push(`weights: ${FEATURE_NAMES.map((n, j) => `${n} ${model.weights[j]}`).join(', ')}; bias ${model.bias}; threshold ${model.threshold}`);
console.log(lines.join('\n'));
process.exit(0);

/** Batch gradient descent on the log loss, both classes weighted equally, a little L2. */
function fitLogistic(x: number[][], y: number[]): { weights: number[]; bias: number } {
  const positives = y.filter((v) => v === 1).length;
  const classWeight = (v: number) => (v === 1 ? y.length / (2 * positives) : y.length / (2 * (y.length - positives)));
  const weights = new Array<number>(x[0]?.length ?? 0).fill(0);
  let bias = 0;
  const rate = 0.1;
  const l2 = 0.001;
  for (let step = 0; step < 3_000; step++) {
    const gradient = weights.map(() => 0);
    let gradientBias = 0;
    x.forEach((row, i) => {
      const z = bias + row.reduce((sum, v, j) => sum + v * weights[j]!, 0);
      const error = (1 / (1 + Math.exp(-z)) - y[i]!) * classWeight(y[i]!);
      row.forEach((v, j) => (gradient[j]! += error * v));
      gradientBias += error;
    });
    weights.forEach((w, j) => (weights[j] = w - rate * (gradient[j]! / x.length + l2 * w)));
    bias -= (rate * gradientBias) / x.length;
  }
  return { weights, bias };
}

function average(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / (values.length || 1);
}
function round(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}
function rounded(values: number[]): number[] {
  return values.map(round);
}
function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}
