/**
 * Fits the decision whether the retrieved passages answer a question
 * (server/retrieval/answer/answer-decision.ts) on calibration folds (`--folds`, default the
 * calibration fold 5; never the report fold 0), and writes its weights to
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
 * threshold count against the share answered). With `--other-keep`, questions that ask for no fact
 * (how-to, yes/no: answer-types.ts `asksForFact`) get a threshold of their own, the highest that
 * answers that share of the answerable ones among them; the threshold above is then chosen for the
 * fact questions.
 *
 * `meaningMatch` is a bilinear match of the query's vector with the best passage's vector: a
 * direction over the 512 products q_i·p_i, fitted first by a strongly regularized logistic model
 * (decision-fit.ts). The main model is fitted on its out-of-fold values (five parts), so it does not
 * trust a match that was fitted on the very question it scores.
 *
 * Usage: node --import tsx bench/answer/fit-decision.ts --data-dir DIR [--folds 5] [--limit 400] [--keep 0.92] [--max-gold-loss 0.012] [--other-keep 0.96]
 *          [--interaction-l2 0.05] [--signed] [--out FILE]
 *          [--features a,b,c] [--dump FILE] [--from FILE] [--cv] [--dry-run] [--with-product-qa FILE]
 *   DIR is a data folder kept by `npm run bench:answers -- --keep`; missing hold-out sets are indexed.
 *   --folds: the folds asked (comma-separated, each fold's sets limited to --limit questions); with
 *   --from, the folds of the dump fitted on (a dump without folds holds fold 5's questions only).
 *   --dump writes every question's set, label and features as JSON; --from fits on such a file
 *   instead of asking again. --features fits on those features only (default: every one).
 *   --cv also prints the five-part cross-validated abstention at the kept share; --dry-run writes nothing;
 *   --signed holds each weight to the sign its feature's meaning gives (FEATURE_SIGNS in decision-fit.ts).
 *   --out writes the weights to FILE instead of the shipped weights file (a candidate to compare).
 *   --with-product-qa FILE adds the product questions `npm run bench:product-qa` exported (its
 *   calibration fold; bench/product-qa/export-features.ts) to the fit; the threshold is still chosen
 *   on SQuAD and StackFAQ. Use it with --out or --dry-run to compare before shipping.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { decisionFeatures, FEATURE_NAMES, thresholdFor } from '../../server/retrieval/answer/answer-decision.ts';
import { Assistant, DEFAULT_TUNING } from '../../server/retrieval/answer/assistant.ts';
import type { QueryEmbedder } from '../../server/embedders/query-embedder.ts';
import { TermStatsRepo } from '../../server/storage/term-stats-repo.ts';
import { crossValidate, type Example, fitDecision, pct } from './decision-fit.ts';
import { containsGold } from './gold.ts';
import { faqHoldoutQuestions, squadHoldoutQuestions } from './holdout-sets.ts';
import { startIndexedSets } from './indexed-sets.ts';
import type { Question } from './run-questions.ts';
import { CALIBRATION_FOLD, faqQuestions, REPORT_FOLD, squadQuestions } from './subsets.ts';

const WEIGHTS_FILE = new URL('../../server/retrieval/answer/answer-decision-weights.json', import.meta.url);

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    folds: { type: 'string', default: String(CALIBRATION_FOLD) },
    limit: { type: 'string', default: '400' },
    keep: { type: 'string', default: '0.92' },
    'max-gold-loss': { type: 'string', default: '0.012' },
    'other-keep': { type: 'string' },
    'interaction-l2': { type: 'string' },
    signed: { type: 'boolean', default: false },
    features: { type: 'string' },
    dump: { type: 'string' },
    from: { type: 'string' },
    cv: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    out: { type: 'string' },
    'sentence-vectors': { type: 'boolean', default: false },
    'with-product-qa': { type: 'string' },
  },
});
const limit = Number(values.limit);
const folds = values.folds.split(',').map(Number);
for (const f of folds) if (!Number.isInteger(f) || f < 0 || f > 9 || f === REPORT_FOLD) throw new Error(`--folds: ${f} is not a calibration fold (1–9)`);
const options = {
  keepShare: Number(values.keep),
  maxGoldLoss: Number(values['max-gold-loss']),
  otherKeep: values['other-keep'] === undefined ? undefined : Number(values['other-keep']),
  interactionL2: values['interaction-l2'] === undefined ? undefined : Number(values['interaction-l2']),
  signed: values.signed,
};
const featureNames = values.features ? values.features.split(',') : [...FEATURE_NAMES];
const log = (line: string) => process.stderr.write(`[fit-decision] ${line}\n`);
/**
 * Features of the best sentence's own vector, read here only (`--sentence-vectors`): embedding
 * sentences on every question costs more time than /ask may spend (docs/assistant.md), so they are
 * studied, not shipped. Named apart from the shipped features so a model cannot ship them.
 */
const STUDIED = ['studySentenceCosine', 'studyWindowCosine', 'studySentenceMarginItem', 'studySentenceMarginOther', 'studyTopSentenceCosine'];
for (const name of featureNames) if (![...FEATURE_NAMES, ...STUDIED].includes(name)) throw new Error(`no feature ${name}`);
/** Milliseconds each question's sentence vectors took (`--sentence-vectors`). */
const embedTimes: number[] = [];

const examples: Example[] = values.from ? readDump(values.from) : await askCalibrationFolds();
if (values.dump) fs.writeFileSync(values.dump, JSON.stringify(examples));
// Product questions join the fit (both classes), not the threshold's rule, which reads SQuAD and StackFAQ by name.
if (values['with-product-qa']) examples.push(...readProductQa(values['with-product-qa']));

if (values.cv) {
  const cv = crossValidate(examples, featureNames, options);
  console.log(`cross-validated (5 parts of folds ${folds.join(',')}), features ${featureNames.join(',')}: ${cv}`);
}
const model = fitDecision(examples, featureNames, options);
if (!values['dry-run']) fs.writeFileSync(values.out ?? WEIGHTS_FILE, `${JSON.stringify(model.model, null, 2)}\n`);
const lines = [`fitted on ${examples.filter((e) => e.features).length} questions the support threshold lets through (${examples.length} asked), folds ${folds.join(',')}`];
for (const set of [...new Set(examples.map((e) => e.set))]) {
  const of = examples.filter((e) => e.set === set);
  const answered = of.filter((e) => model.probability(e) >= (e.question === undefined ? model.model.threshold : thresholdFor(e.question, model.model))).length;
  const gate = of.filter((e) => e.features !== null).length;
  lines.push(`${set}: ${of.length} questions, answered by the support threshold ${pct(gate / of.length)}, with the decision ${pct(answered / of.length)}`);
}
lines.push(`SQuAD answers holding a gold answer lost to the decision: ${pct(model.goldLoss)} of the answerable questions`);
lines.push(`weights: ${model.model.features.map((n, j) => `${n} ${model.model.weights[j]}`).join(', ')}; bias ${model.model.bias}; threshold ${model.model.threshold}${model.model.otherThreshold === undefined ? '' : `, for questions that ask for no fact ${model.model.otherThreshold}`}`);
console.log(lines.join('\n'));
process.exit(0);

/** A dump's questions of the folds fitted on; one written before folds were recorded holds fold 5's. */
function readDump(file: string): Example[] {
  const dumped = JSON.parse(fs.readFileSync(file, 'utf8')) as Example[];
  const of = dumped.filter((e) => folds.includes(e.fold ?? CALIBRATION_FOLD));
  if (of.length === 0) throw new Error(`${file} holds no question of folds ${folds.join(',')}`);
  return of;
}

/** The product-QA calibration fold's examples written by `npm run bench:product-qa` (bench/product-qa/export-features.ts). */
function readProductQa(file: string): Example[] {
  const read = JSON.parse(fs.readFileSync(file, 'utf8')) as Example[];
  if (read.length === 0 || !read.every((e) => e.set.startsWith('product-qa'))) throw new Error(`${file} is not a product-QA feature export`);
  log(`with ${read.length} product questions of ${file} (${read.filter((e) => e.answerable).length} whose best sentence answers)`);
  return read;
}

/** Asks the calibration folds' questions of the indexed sets, with the support threshold alone, and reads each one's features. */
async function askCalibrationFolds(): Promise<Example[]> {
  const sets = await startIndexedSets({ dataDir: values['data-dir'], keep: true, log });
  const { services } = sets.server;
  const gateOnly = new Assistant(services.search, services.embedding, new TermStatsRepo(services.db), services.llmSettings, {
    ...DEFAULT_TUNING,
    decision: null,
  });
  const signal = new AbortController().signal;
  const collected: Example[] = [];
  const collect = async (fold: number, set: string, kb: string, questions: Question[], answerable: boolean) => {
    for (const q of questions) {
      const analysis = await gateOnly.analyze(kb, { question: q.text }, signal);
      // Abstained on by the support threshold: no decision to fit, but it counts as not answered.
      // Features are read without a fitted direction; the product vector is kept to fit one.
      const noInteraction = { ...DEFAULT_TUNING.decision!, interaction: undefined };
      const features = gateOnly.answers(analysis) ? decisionFeatures(analysis, noInteraction) : null;
      const gold = answerable && q.goldAnswers !== null && containsGold((await gateOnly.ask(kb, { question: q.text }, { signal })).answer, q.goldAnswers);
      let product: number[] | null = null;
      const best = analysis.scored.find((s) => s.quotable);
      if (features && best && analysis.vectors) {
        const own = analysis.vectors.passages[best.passage];
        if (own) product = Array.from(analysis.vectors.query, (v, i) => round6(v * own[i]!));
      }
      if (features && values['sentence-vectors']) Object.assign(features, await sentenceStudy(services.queryEmbedder, analysis, q.text));
      collected.push({ set, fold, answerable, features, gold, product, question: q.text, sentence: best?.text });
    }
    log(`fold ${fold}, ${set}: ${questions.length} questions`);
    if (embedTimes.length) log(`sentence vectors: median ${[...embedTimes].sort((a, b) => a - b)[Math.floor(embedTimes.length / 2)]!.toFixed(1)} ms per question`);
  };
  try {
    for (const fold of folds) {
      const squadHoldout = squadHoldoutQuestions(fold, limit);
      const faqHoldout = faqHoldoutQuestions(fold, limit);
      await collect(fold, 'squad', sets.squad.knowledgeBaseId, squadQuestions(fold, limit), true);
      await collect(fold, 'squad hold-out answerable', sets.squadHoldout.knowledgeBaseId, squadHoldout.answerable, true);
      await collect(fold, 'squad hold-out unanswerable', sets.squadHoldout.knowledgeBaseId, squadHoldout.unanswerable, false);
      await collect(fold, 'stackfaq', sets.stackfaq.knowledgeBaseId, faqQuestions(fold, limit), true);
      await collect(fold, 'stackfaq hold-out answerable', sets.stackfaqHoldout.knowledgeBaseId, faqHoldout.answerable, true);
      await collect(fold, 'stackfaq hold-out unanswerable', sets.stackfaqHoldout.knowledgeBaseId, faqHoldout.unanswerable, false);
    }
  } finally {
    await sets.close();
  }
  return collected;
}

/** The best sentence's vector against the question's and against the next sentences' (studied, not shipped). */
async function sentenceStudy(
  embedder: QueryEmbedder,
  analysis: Awaited<ReturnType<Assistant['analyze']>>,
  question: string,
): Promise<Record<string, number>> {
  const quotable = analysis.scored.filter((s) => s.quotable);
  const best = quotable[0]!;
  const window = analysis.scored.filter((s) => s.passage === best.passage && Math.abs(s.position - best.position) <= 1).sort((a, b) => a.position - b.position);
  const others = quotable.slice(1, 7);
  const started = performance.now();
  const [q, b, w, ...rest] = await embedder.embed([question, best.text, window.map((s) => s.text).join(' '), ...others.map((s) => s.text)]);
  embedTimes.push(performance.now() - started);
  const cos = (v: Float32Array) => v.reduce((sum, x, i) => sum + x * q![i]!, 0);
  const sameItem = others.map((s, i) => (s.item === best.item ? cos(rest[i]!) : -1));
  const otherItem = others.map((s, i) => (s.item !== best.item ? cos(rest[i]!) : -1));
  const sentenceCosine = cos(b!);
  return {
    studySentenceCosine: sentenceCosine,
    studyWindowCosine: cos(w!),
    studySentenceMarginItem: sentenceCosine - Math.max(-1, ...sameItem),
    studySentenceMarginOther: sentenceCosine - Math.max(-1, ...otherItem),
    studyTopSentenceCosine: Math.max(sentenceCosine, ...others.map((_, i) => cos(rest[i]!))),
  };
}

function round6(v: number): number {
  return Math.round(v * 1e6) / 1e6;
}
