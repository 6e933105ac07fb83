/**
 * How well visitors' questions are grouped by meaning (server/domain/question-grouping.ts), on a
 * labelled set built from public data (../shared/eval): StackFAQ rephrasings, labelled by their
 * thread, and SQuAD questions, labelled by the paragraph they ask about. Each question is embedded
 * with the configured model (USE-lite by default) and its content words stemmed as the grouping
 * pass does; the questions are then grouped in a shuffled order (as visitors would ask them) at
 * each threshold and keyword weight of a grid, and scored by pair precision and recall.
 *
 * Usage: node --import tsx bench/question-grouping.ts [--squad-paragraphs 100] [--seed 7]
 *          [--fixture test/fixtures/question-groups.json]
 *   --fixture FILE  also writes the small labelled sample the unit test reads (texts, labels,
 *                   int8 vectors), drawn from the same data
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder } from '../server/embedders/index.ts';
import { GROUPING, type GroupingSettings, groupQuestions, pairScores } from '../server/domain/question-grouping.ts';
import { questionStems } from '../server/retrieval/question-groups.ts';

const { values } = parseArgs({
  options: {
    'squad-paragraphs': { type: 'string', default: '100' },
    seed: { type: 'string', default: '7' },
    fixture: { type: 'string' },
    'vector-cache': { type: 'string' },
    weights: { type: 'string', default: '0,0.15,0.3,0.45,0.6' },
    thresholds: { type: 'string', default: '0.45,0.85' },
  },
});

const EVAL = path.resolve(import.meta.dirname, '../../shared/eval');
const readJsonl = <T>(file: string): T[] =>
  fs.readFileSync(path.join(EVAL, file), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as T);

type Labelled = { text: string; label: string; source: 'stackfaq' | 'squad' };

/** A small seeded generator, so every run draws the same order. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
function shuffled<T>(list: T[], rand: () => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const stackfaq: Labelled[] = readJsonl<{ query: string; gold_faq_id: string }>('stackfaq/queries.jsonl').map((q) => ({
  text: q.query,
  label: `faq:${q.gold_faq_id}`,
  source: 'stackfaq',
}));
const squadAll = readJsonl<{ question: string; gold_passage_id: string }>('squad-dev/questions.jsonl');
const paragraphs = [...new Set(squadAll.map((q) => q.gold_passage_id))];
// Every k-th paragraph, so the sample spans all 24 articles.
const step = Math.max(1, Math.floor(paragraphs.length / Number(values['squad-paragraphs'])));
const chosen = new Set(paragraphs.filter((_, i) => i % step === 0).slice(0, Number(values['squad-paragraphs'])));
const squad: Labelled[] = squadAll.filter((q) => chosen.has(q.gold_passage_id)).map((q) => ({ text: q.question, label: `squad:${q.gold_passage_id}`, source: 'squad' }));

const embedder = await createEmbedder({ kind: 'use-lite' });
const all = [...stackfaq, ...squad];
const started = performance.now();
let vectors: Float32Array[] = [];
// --vector-cache FILE keeps the vectors between runs (they depend only on the texts and the model).
const cache = values['vector-cache'];
if (cache && fs.existsSync(cache)) {
  const bytes = fs.readFileSync(cache);
  const flat = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  vectors = all.map((_, i) => flat.slice(i * embedder.dimension, (i + 1) * embedder.dimension));
} else {
  for (let i = 0; i < all.length; i += 64) {
    vectors.push(...(await embedder.embed(all.slice(i, i + 64).map((q) => q.text))));
    if (i % 640 === 0) console.error(`embedded ${i + 64} of ${all.length}`);
  }
  if (cache) fs.writeFileSync(cache, Buffer.concat(vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))));
}
const embedMs = performance.now() - started;
const questions = all.map((q, i) => ({ ...q, vector: vectors[i]!, stems: questionStems(q.text) }));

const rand = random(Number(values.seed));
const sets = {
  stackfaq: shuffled(questions.filter((q) => q.source === 'stackfaq'), rand),
  squad: shuffled(questions.filter((q) => q.source === 'squad'), rand),
  both: shuffled(questions, rand),
};

function score(set: typeof questions, settings: GroupingSettings) {
  const groups = groupQuestions(set, settings);
  return { ...pairScores(groups, set.map((q) => q.label)), groups: new Set(groups).size };
}

const rows: Array<{ keywordWeight: number; threshold: number; set: string; precision: number; recall: number; f1: number; groups: number }> = [];
const [low, high] = values.thresholds.split(',').map(Number) as [number, number];
for (const keywordWeight of values.weights.split(',').map(Number)) {
  for (let threshold = low; threshold <= high + 1e-9; threshold += 0.05) {
    const settings = { keywordWeight, threshold: Math.round(threshold * 1000) / 1000 };
    for (const [name, set] of Object.entries(sets)) rows.push({ ...settings, set: name, ...score(set, settings) });
    console.error(`grid: weight ${keywordWeight}, threshold ${settings.threshold}`);
  }
}
const best = rows.filter((r) => r.set === 'both').sort((a, b) => b.f1 - a.f1)[0]!;
const round = (x: number) => Math.round(x * 1000) / 1000;
const atShipped = Object.fromEntries(Object.entries(sets).map(([name, set]) => [name, { ...score(set, GROUPING) }]));
console.log(
  JSON.stringify(
    {
      model: embedder.id,
      questions: { stackfaq: sets.stackfaq.length, stackfaqThreads: new Set(stackfaq.map((q) => q.label)).size, squad: sets.squad.length, squadParagraphs: chosen.size },
      embedMsPerQuestion: round(embedMs / all.length),
      bestOnBoth: best,
      shipped: { settings: GROUPING, ...Object.fromEntries(Object.entries(atShipped).map(([k, v]) => [k, { precision: round(v.precision), recall: round(v.recall), f1: round(v.f1), groups: v.groups }])) },
      grid: rows.map((r) => ({ ...r, precision: round(r.precision), recall: round(r.recall), f1: round(r.f1) })),
    },
    null,
    1,
  ),
);

if (values.fixture) {
  // 10 StackFAQ threads (4 rephrasings each) and 6 SQuAD paragraphs (3 questions each).
  const threads = [...new Set(stackfaq.map((q) => q.label))].filter((_, i) => i % 12 === 0).slice(0, 10);
  const paras = [...chosen].filter((_, i) => i % 16 === 0).slice(0, 6);
  const sample = [
    ...threads.flatMap((t) => questions.filter((q) => q.label === t).slice(0, 4)),
    ...paras.flatMap((p) => questions.filter((q) => q.label === `squad:${p}`).slice(0, 3)),
  ];
  const fixture = {
    about: 'Labelled questions for test/unit/server/domain/question-grouping.test.ts, written by bench/question-grouping.ts: StackFAQ (CC BY-SA 3.0) rephrasings labelled by thread, SQuAD v1.1 dev (CC BY-SA 4.0) questions labelled by paragraph; vectors are USE-lite, int8 (×127).',
    model: embedder.id,
    questions: shuffled(sample, random(11)).map((q) => ({ text: q.text, label: q.label, vector: Buffer.from(Int8Array.from(q.vector, (x) => Math.round(x * 127)).buffer).toString('base64') })),
  };
  fs.writeFileSync(values.fixture, `${JSON.stringify(fixture, null, 1)}\n`);
  console.error(`wrote ${sample.length} questions to ${values.fixture}`);
}
await embedder.close();
