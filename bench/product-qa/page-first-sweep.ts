/**
 * Chooses PAGE_ABSTAIN_BELOW (abstention.ts) on the calibration fold of the product questions:
 * each calibration question asked in process in its product's context, read two ways on a kept
 * index (`bench:product-qa --data-dir`): the page's item's own content alone, whatever its
 * support, and the shipped reading without the page-first step. Prints, per threshold, what the
 * report would measure if the page's reading answered at or above it (else the shipped reading):
 * answerable answered, the quoted evidence labelled answering, unanswerable abstained; as it is,
 * and with another product's answer turned into an abstention. Never reads the report fold.
 *
 * Usage: LOCALIQ_EVAL_DIR=… node --import tsx bench/product-qa/page-first-sweep.ts --data-dir DIR [--sets hetpqa,semipqa] [--limit N]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../../server/config.ts';
import { startServer } from '../../server/main.ts';
import { Assistant, DEFAULT_TUNING } from '../../server/retrieval/answer/assistant.ts';
import { ContextItemRepo } from '../../server/storage/context-item-repo.ts';
import { TermStatsRepo } from '../../server/storage/term-stats-repo.ts';
import { benchEnv } from '../lib/server-child.ts';
import { ATTRIBUTE_QA_KB, foldOf, PRODUCT_QA_KB, type ProductQuestion, questionsOf, readEvidence, readSemiPqa } from './dataset.ts';
import { judgeEvidence } from './evidence.ts';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, sets: { type: 'string', default: 'hetpqa' }, limit: { type: 'string' } } });
if (!values['data-dir']) throw new Error('--data-dir: a data folder bench:product-qa kept');
const limit = values.limit === undefined ? Infinity : Number(values.limit);
const server = await startServer(loadConfig(benchEnv(values['data-dir']), { workers: 1 }));
const { services } = server;
const signal = new AbortController().signal;
const make = (pageAbstainBelow: number | null, decision = DEFAULT_TUNING.decision) =>
  new Assistant(services.search, services.embedding, new TermStatsRepo(services.db), services.llmSettings, { ...DEFAULT_TUNING, pageAbstainBelow, decision });
const pageAlways = make(-1, null);
const shipped = make(null);
const items = new ContextItemRepo(services.db);

type Row = { q: ProductQuestion; page: { score: number; answered: boolean; evidence: boolean } | null; shipped: { answered: boolean; evidence: boolean; otherItem: boolean } };
try {
  for (const [name, kb, rows] of [
    ['hetpqa', PRODUCT_QA_KB, readEvidence],
    ['semipqa', ATTRIBUTE_QA_KB, readSemiPqa],
  ] as const) {
    if (!values.sets.split(',').includes(name)) continue;
    const questions = questionsOf(rows()).filter((q) => foldOf(q.asin) === 'calibration').slice(0, limit);
    const out: Row[] = [];
    for (const q of questions) {
      const item = items.byExternalId(kb, q.asin);
      const focus = item ? { itemId: item.id } : undefined;
      const request = { question: q.question, context: { externalId: q.asin } };
      const judged = (a: { answer: string; answered: boolean; citations: Array<{ number: number; externalId: string }> }) =>
        a.answered && judgeEvidence(a.answer, q.candidates, { citations: a.citations as never, product: q.asin }).answering;
      const pageAnalysis = await pageAlways.analyze(kb, request, signal, focus);
      let page: Row['page'] = null;
      if (pageAnalysis.pageFirst) {
        const a = await pageAlways.respond(pageAnalysis, { signal });
        page = { score: pageAnalysis.support.score, answered: a.answered, evidence: judged(a) };
      }
      const s = await shipped.respond(await shipped.analyze(kb, request, signal, focus), { signal });
      out.push({ q, page, shipped: { answered: s.answered, evidence: judged(s), otherItem: s.answered && s.citations[0]?.externalId !== q.asin } });
    }
    const report = (label: string, pick: (r: Row) => { answered: boolean; evidence: boolean }) => {
      let answerable = 0, answered = 0, evidence = 0, unanswerable = 0, abstained = 0;
      for (const r of out) {
        const a = pick(r);
        if (r.q.answerable) {
          answerable++;
          if (a.answered) answered++;
          if (a.answered && a.evidence) evidence++;
        } else {
          unanswerable++;
          if (!a.answered) abstained++;
        }
      }
      const pct = (x: number, n: number) => `${((100 * x) / Math.max(1, n)).toFixed(1)} %`;
      console.log(`${name} ${label}: answerable answered ${pct(answered, answerable)} (${answered}/${answerable}), evidence answering ${pct(evidence, answered)}, unanswerable abstained ${pct(abstained, unanswerable)} (${abstained}/${unanswerable})`);
    };
    report('shipped reading (no page-first step)', (r) => r.shipped);
    const none = { answered: false, evidence: false };
    // The fitted decision on the page's reading was measured too (2026-11-29): it turned down none
    // of these answers at any threshold, so the page's reading answers on support.
    for (const t of [0.25, 0.3, 0.325, 0.35, 0.375, 0.4, 0.45]) {
      const takes = (r: Row) => r.page !== null && r.page.answered && r.page.score >= t;
      report(`page first at ${t}`, (r) => (takes(r) ? r.page! : r.shipped));
      report(`page first at ${t}, another product never`, (r) => (takes(r) ? r.page! : r.shipped.otherItem ? none : r.shipped));
    }
  }
} finally {
  await server.stop();
}
process.exit(0);
