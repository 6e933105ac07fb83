/**
 * How well curated answers (the owner's own answers) are matched to visitors' questions, on
 * StackFAQ: its 125 thread questions are the curated questions, its 1,249 rephrasings the visitors'
 * questions. The rephrasings are split by a stable hash of their id into a calibration half, on
 * which the tuning (cosine weight, threshold, margin) is chosen, and a report half, on which it is
 * reported. Questions that should match none: SQuAD questions (another subject altogether), and
 * the rephrasings of a fifth of the curated questions once those are removed from the set (the
 * same subject, a question the owner did not answer).
 * Run: npm run bench:curated   (node --import tsx bench/curated-answers.ts); the data is read from
 * ../shared/eval beside the checkout, or from LOCALIQ_EVAL_DIR.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUseLiteEmbedder } from '../server/embedders/use-lite.ts';
import { type CuratedEntry, CuratedMatcher, DEFAULT_MATCH_TUNING, type MatchTuning, type Signals } from '../server/retrieval/curated/match.ts';

const evalDir = process.env.LOCALIQ_EVAL_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/eval');
const SQUAD_QUESTIONS = 1000;
/** At most this share of the calibration half may be matched to a wrong curated answer. */
const WRONG_CAP = 0.01;
/** At most this share of questions that match none may be captured. */
const CAPTURED_CAP = 0.03;

const readJsonl = <T>(file: string): T[] =>
  fs.readFileSync(path.join(evalDir, file), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as T);
const faqs = readJsonl<{ id: string; question: string }>('stackfaq/faqs.jsonl');
const queries = readJsonl<{ id: string; query: string; gold_faq_id: string }>('stackfaq/queries.jsonl');
const squad = readJsonl<{ id: string; question: string }>('squad-dev/questions.jsonl').filter((q) => hashShare(q.id) < 1).slice(0, SQUAD_QUESTIONS);

/** A stable number in [0, 1) from a text: the same split on every run and machine. */
function hashShare(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

const embedder = await createUseLiteEmbedder();
const embed = async (texts: string[]) => embedder.embed(texts);
const faqVectors = await embed(faqs.map((f) => f.question));
const queryVectors = await embed(queries.map((q) => q.query));
const squadVectors = await embed(squad.map((q) => q.question));
await embedder.close();

const faqIndex = new Map(faqs.map((f, i) => [f.id, i]));
const entries: CuratedEntry[] = faqs.map((f, i) => ({ id: i, phrasings: [{ text: f.question, vector: faqVectors[i]! }] }));
const all = new CuratedMatcher(entries, 'en');
const heldOut = new Set(faqs.filter((f) => hashShare(`held-out:${f.id}`) < 0.2).map((f) => faqIndex.get(f.id)!));
const kept = new CuratedMatcher(entries.filter((e) => !heldOut.has(e.id)), 'en');

type Case = { question: string; vector: Float32Array; gold: number | null; matcher: CuratedMatcher; signals?: Signals };
const positives = queries.map((q, i) => ({ question: q.query, vector: queryVectors[i]!, gold: faqIndex.get(q.gold_faq_id)!, matcher: all, id: q.id }));
const calibration = positives.filter((p) => hashShare(p.id) < 0.5);
const report = positives.filter((p) => hashShare(p.id) >= 0.5);
const negatives = (half: (id: string) => boolean): Case[] => [
  ...squad.flatMap((q, i) => (half(q.id) ? [{ question: q.question, vector: squadVectors[i]!, gold: null, matcher: all }] : [])),
  ...positives.flatMap((p) => (heldOut.has(p.gold) && half(p.id) ? [{ ...p, gold: null, matcher: kept }] : [])),
];
const inCalibration = (id: string) => hashShare(id) < 0.5;
const calibrationNone = negatives(inCalibration);
const reportNone = negatives((id) => !inCalibration(id));

type Outcome = { right: number; wrong: number; captured: number; positives: number; none: number };
function evaluate(positiveCases: Case[], noneCases: Case[], tuning: MatchTuning): Outcome {
  let right = 0;
  let wrong = 0;
  let captured = 0;
  for (const c of positiveCases) {
    const found = c.matcher.decide((c.signals ??= c.matcher.signals(c.question, c.vector)), tuning);
    if (found?.id === c.gold) right++;
    else if (found) wrong++;
  }
  for (const c of noneCases) if (c.matcher.decide((c.signals ??= c.matcher.signals(c.question, c.vector)), tuning)) captured++;
  return { right: right / positiveCases.length, wrong: wrong / positiveCases.length, captured: captured / noneCases.length, positives: positiveCases.length, none: noneCases.length };
}

// The tuning that matches most of the calibration half within the caps on wrong and captured.
let chosen: { tuning: MatchTuning; outcome: Outcome } | null = null;
for (let w = 0; w <= 1.0001; w += 0.1) {
  for (let t = 0.3; t <= 0.9; t += 0.01) {
    for (const m of [0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1]) {
      const tuning = { cosineWeight: round(w), threshold: round(t), margin: m };
      const outcome = evaluate(calibration, calibrationNone, tuning);
      if (outcome.wrong > WRONG_CAP || outcome.captured > CAPTURED_CAP) continue;
      if (!chosen || outcome.right > chosen.outcome.right) chosen = { tuning, outcome };
    }
  }
}
function round(x: number): number {
  return Math.round(x * 100) / 100;
}
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const line = (name: string, o: Outcome) =>
  `| ${name} | ${o.positives} | ${pct(o.right)} | ${pct(o.wrong)} | ${pct(1 - o.right - o.wrong)} | ${o.none} | ${pct(o.captured)} |`;

console.log(`curated questions: ${faqs.length} (held out for "matches none": ${heldOut.size}); rephrasings: ${queries.length} (calibration ${calibration.length}, report ${report.length}); SQuAD questions: ${squad.length}`);
if (!chosen) {
  console.log('no tuning meets the caps on the calibration half');
} else {
  console.log(`chosen on the calibration half: ${JSON.stringify(chosen.tuning)}`);
}
console.log('| tuning, half | rephrasings | right answer | wrong answer | left to the assistant | questions that match none | wrongly captured |');
console.log('|---|---|---|---|---|---|---|');
if (chosen) {
  console.log(line('chosen, calibration', chosen.outcome));
  console.log(line('chosen, report', evaluate(report, reportNone, chosen.tuning)));
}
console.log(line(`shipped ${JSON.stringify(DEFAULT_MATCH_TUNING)}, report`, evaluate(report, reportNone, DEFAULT_MATCH_TUNING)));
for (const [name, tuning] of [['keywords only', { cosineWeight: 0 }], ['cosine only', { cosineWeight: 1 }]] as const) {
  // Each signal alone, its threshold chosen the same way, for comparison.
  let best: { tuning: MatchTuning; outcome: Outcome } | null = null;
  for (let t = 0.3; t <= 1.0001; t += 0.01) {
    for (const m of [0, 0.02, 0.04, 0.06, 0.1]) {
      const full = { ...tuning, threshold: round(t), margin: m };
      const outcome = evaluate(calibration, calibrationNone, full);
      if (outcome.wrong > WRONG_CAP || outcome.captured > CAPTURED_CAP) continue;
      if (!best || outcome.right > best.outcome.right) best = { tuning: full, outcome };
    }
  }
  if (best) console.log(line(`${name} ${JSON.stringify(best.tuning)}, report`, evaluate(report, reportNone, best.tuning)));
}

// The owner adds the wordings visitors used (from Content gaps, or by hand): two rephrasings of
// each curated question from the calibration half become its alsoAsked; reported on the report half.
const ALSO_ASKED = 2;
const withAlsoAsked = new CuratedMatcher(
  entries.map((entry) => ({
    id: entry.id,
    phrasings: [
      ...entry.phrasings,
      ...calibration.filter((p) => p.gold === entry.id).slice(0, ALSO_ASKED).map((p) => ({ text: p.question, vector: p.vector })),
    ],
  })),
  'en',
);
const keptWithAlsoAsked = new CuratedMatcher(
  entries.filter((e) => !heldOut.has(e.id)).map((entry) => ({
    id: entry.id,
    phrasings: [...entry.phrasings, ...calibration.filter((p) => p.gold === entry.id).slice(0, ALSO_ASKED).map((p) => ({ text: p.question, vector: p.vector }))],
  })),
  'en',
);
const reportWithAlso = report.map((p) => ({ ...p, matcher: withAlsoAsked, signals: undefined }));
const reportNoneWithAlso = reportNone.map((c) => ({ ...c, matcher: c.matcher === kept ? keptWithAlsoAsked : withAlsoAsked, signals: undefined }));
console.log(line(`shipped, ${ALSO_ASKED} alsoAsked each (from calibration), report`, evaluate(reportWithAlso, reportNoneWithAlso, DEFAULT_MATCH_TUNING)));
