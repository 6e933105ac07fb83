/**
 * Calibrates the abstention threshold and the sentence selection on the calibration fold, in
 * process, on a data folder that holds the SQuAD and StackFAQ knowledge bases (one kept by
 * `bench/retrieval-eval.ts --keep` or `bench/answer-eval.ts --keep`).
 *
 * Answerable: SQuAD questions against the SQuAD knowledge base. Unanswerable: the same SQuAD
 * questions against the StackFAQ knowledge base, and StackFAQ questions against SQuAD's.
 * Usage: node --import tsx bench/answer/calibrate.ts --data-dir DIR [--limit 300]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../server/config.ts';
import { ABSTAIN_BELOW, supportScore } from '../../server/retrieval/answer/abstention.ts';
import { Assistant } from '../../server/retrieval/answer/assistant.ts';
import { DEFAULT_SELECTION, type SelectionOptions } from '../../server/retrieval/answer/extractive.ts';
import { TermStatsRepo } from '../../server/storage/term-stats-repo.ts';
import { openServices } from '../../server/services.ts';
import { benchEnv } from '../lib/server-child.ts';
import { containsGold } from './gold.ts';
import { CALIBRATION_FOLD, faqQuestions, squadQuestions } from './subsets.ts';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, limit: { type: 'string', default: '300' } } });
const limit = Number(values.limit);
const services = await openServices(loadConfig(benchEnv(path.resolve(values['data-dir']!))));
const signal = new AbortController().signal;
const squad = squadQuestions(CALIBRATION_FOLD, limit);
const faq = faqQuestions(CALIBRATION_FOLD, limit);

type Features = { coverage: number; cosine: number | null };
async function features(kb: string, question: string): Promise<Features> {
  const a = await services.assistant.analyze(kb, { question }, signal);
  return { coverage: a.bestCoverage, cosine: a.bestCosine };
}
const positives: Features[] = [];
for (const q of squad) positives.push(await features('eval-squad', q.text));
const negatives: Features[] = [];
for (const q of squad) negatives.push(await features('eval-stackfaq', q.text));
for (const q of faq) negatives.push(await features('eval-squad', q.text));
const faqPositives: Features[] = [];
for (const q of faq) faqPositives.push(await features('eval-stackfaq', q.text));

const lines: string[] = [`positives ${positives.length}, negatives ${negatives.length}`];
for (const weight of [1, 0.7, 0.5, 0.3]) {
  const score = (f: Features) => (weight === 1 ? f.coverage : weight * f.coverage + (1 - weight) * Math.max(0, f.cosine ?? 0));
  for (const threshold of [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]) {
    const keep = positives.filter((f) => score(f) >= threshold).length / positives.length;
    const keepFaq = faqPositives.filter((f) => score(f) >= threshold).length / faqPositives.length;
    const abstain = negatives.filter((f) => score(f) < threshold).length / negatives.length;
    lines.push(`coverage weight ${weight} threshold ${threshold}: answers ${(keep * 100).toFixed(1)} % of answerable SQuAD, ${(keepFaq * 100).toFixed(1)} % of answerable StackFAQ, abstains on ${(abstain * 100).toFixed(1)} % of unanswerable`);
  }
}
lines.push(`support() at ABSTAIN_BELOW: answerable kept ${positives.filter((f) => supportScore(f.coverage, f.cosine) >= ABSTAIN_BELOW).length}/${positives.length}`);

// Sentence selection: gold containment of the extractive answer (never abstaining) on the same fold.
const variants: SelectionOptions[] = [
  DEFAULT_SELECTION,
  { ...DEFAULT_SELECTION, maxSentences: 2 },
  { ...DEFAULT_SELECTION, maxSentences: 1 },
  { ...DEFAULT_SELECTION, keepRatio: 0.6 },
  { ...DEFAULT_SELECTION, keepRatio: 0.9 },
];
for (const selection of variants) {
  const assistant = new Assistant(services.search, services.embedding, new TermStatsRepo(services.db), services.llmSettings, {
    abstainBelow: -1,
    pageAbstainBelow: null,
    selection,
    decision: null,
  });
  let contained = 0;
  let chars = 0;
  for (const q of squad) {
    const result = await assistant.ask('eval-squad', { question: q.text }, { signal });
    if (containsGold(result.answer, q.goldAnswers!)) contained++;
    chars += result.answer.length;
  }
  lines.push(`selection ${JSON.stringify(selection)}: gold in ${contained}/${squad.length}, mean ${Math.round(chars / squad.length)} characters`);
}
console.log(lines.join('\n'));
services.close();
process.exit(0);
