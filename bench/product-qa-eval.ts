/**
 * Product questions as a shop's visitors ask them (`../shared/eval/product-qa`): hetPQA's questions
 * with evidence from six kinds of content, and semiPQA's attribute questions, each set in a
 * knowledge base of its own, every product one PRODUCT item (bench/product-qa/dataset.ts) pushed
 * through `POST /ingest/bulk` of a real server; on the report fold (20 % of the products by a hash
 * of the asin) each question asked through `POST /knowledge-bases/{id}/ask` in its product's
 * context (`context: {externalId, url}`: the visitor is on that product's page) and again without
 * it. Reports per set: answerable questions answered, the quoted evidence labelled answering
 * (bench/product-qa/evidence.ts), questions none of the product's content answers abstained, the
 * right product cited first. A server that rejects `context` is asked without it; the report says so.
 *
 * With `--export FILE` (default bench/results/product-qa-features.json) the calibration fold's
 * questions of every set are also analysed in process with the support threshold alone and the
 * decision's features written in the form `bench/answer/fit-decision.ts --with-product-qa FILE` reads.
 *
 * `--fold calibration` asks the calibration fold instead of the report fold (to try a rule on it).
 *
 * Usage: npm run bench:product-qa [-- --sets hetpqa,semipqa] [--data-dir DIR] [--limit N] [--fold report|calibration] [--no-export] [--export FILE] [--out FILE]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AskResponse } from '../common/contract/ask.ts';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/main.ts';
import { ContextAsker } from './lib/ask-in-context.ts';
import { benchEnv } from './lib/server-child.ts';
import { waitUntilIndexed } from './lib/wait-indexed.ts';
import { exportDecisionFeatures } from './product-qa/export-features.ts';
import type { Example } from './answer/decision-fit.ts';
import {
  ATTRIBUTE_QA_KB,
  type EvidenceRow,
  foldOf,
  PRODUCT_QA_KB,
  type ProductItem,
  productItems,
  type ProductQuestion,
  productUrl,
  questionsOf,
  readEvidence,
  readSemiPqa,
  REPORT_PERCENT,
} from './product-qa/dataset.ts';
import { judgeEvidence } from './product-qa/evidence.ts';
import { ingestBulk } from './retrieval/http-client.ts';

const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: 'hetpqa,semipqa' },
    'data-dir': { type: 'string' },
    limit: { type: 'string' },
    fold: { type: 'string', default: 'report' },
    export: { type: 'string', default: path.join(import.meta.dirname, 'results/product-qa-features.json') },
    'no-export': { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(import.meta.dirname, `results/product-qa-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.json`) },
  },
});
const log = (line: string) => process.stderr.write(`[product-qa] ${line}\n`);
const limit = values.limit === undefined ? Infinity : Number(values.limit);
// The report fold is what docs/answers.md reports; rules are tried on the calibration fold.
const fold = values.fold === 'report' || values.fold === 'calibration' ? values.fold : fail(`--fold: report or calibration, not ${values.fold}`);

type QaSet = { name: string; dataset: string; kb: string; rows: () => EvidenceRow[] };
const SETS: QaSet[] = [
  { name: 'hetpqa', dataset: 'hetPQA evidence ranking (dev)', kb: PRODUCT_QA_KB, rows: () => readEvidence() },
  { name: 'semipqa', dataset: 'semiPQA attribute ranking (test, seen)', kb: ATTRIBUTE_QA_KB, rows: () => readSemiPqa() },
];
const chosen = values.sets.split(',').map((name) => SETS.find((s) => s.name === name) ?? fail(`--sets: no set ${name} (hetpqa, semipqa)`));

const dataDir = values['data-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-product-qa-'));
fs.mkdirSync(dataDir, { recursive: true });
const server = await startServer(loadConfig(benchEnv(dataDir), { workers: 2 }));
try {
  const target = { url: server.url, key: server.services.keys.create({ name: 'product-qa eval', scopes: ['iq:import', 'iq:read'] }).value };
  const asker = new ContextAsker(target);
  const summaries: Record<string, unknown> = {};
  const answers: Record<string, unknown[]> = {};
  const examples: Example[] = [];
  for (const set of chosen) {
    const rows = set.rows();
    const items = productItems(rows);
    const questions = questionsOf(rows);
    const report = questions.filter((q) => foldOf(q.asin) === fold).slice(0, limit);
    const calibration = questions.filter((q) => foldOf(q.asin) === 'calibration').slice(0, limit);
    log(`${set.name}: ${items.length} products, ${questions.length} questions: report fold ${questions.length - calibration.length} (${REPORT_PERCENT} % of products by hash), calibration ${calibration.length}; asking the ${fold} fold (${report.length})`);
    // Pushed every run: on a kept data folder the server skips the items whose content is unchanged.
    await pushProducts(set.kb, items);

    const inContext = await askAll(set, report, true);
    const contextTaken = asker.contextSupported === true;
    if (!contextTaken) log('the server rejects `context` on /ask: the "in context" pass was asked without it and is not reported apart');
    const withoutContext = contextTaken ? await askAll(set, report, false) : inContext;
    summaries[set.name] = {
      dataset: `${set.dataset}, ../shared/eval/product-qa`,
      knowledgeBase: set.kb,
      askedFold: fold,
      reportFold: { products: new Set(report.map((q) => q.asin)).size, questions: report.length, answerable: report.filter((q) => q.answerable).length },
      contextSupported: contextTaken,
      inContext: contextTaken ? score(report, inContext) : null,
      withoutContext: score(report, withoutContext),
    };
    answers[set.name] = report.map((q, i) => ({
      qid: q.qid,
      asin: q.asin,
      question: q.question,
      answerable: q.answerable,
      inContext: contextTaken ? brief(inContext[i]!, q) : null,
      withoutContext: brief(withoutContext[i]!, q),
    }));
    if (!values['no-export']) examples.push(...(await exportDecisionFeatures(server.services, set.name, set.kb, calibration, contextTaken, log)));
  }

  const summary = { ...summaries, goals: { answerableAnswered: 0.7, evidenceAnswering: 0.75, unanswerableAbstained: 0.6 } };
  console.log(JSON.stringify(summary, null, 2));
  fs.mkdirSync(path.dirname(values.out), { recursive: true });
  fs.writeFileSync(values.out, JSON.stringify({ summary, answers }, null, 2));
  log(`every answer: ${values.out}`);
  if (!values['no-export']) {
    fs.mkdirSync(path.dirname(values.export), { recursive: true });
    fs.writeFileSync(values.export, JSON.stringify(examples));
    log(`decision features of ${examples.length} calibration questions: ${values.export}`);
  }

  async function pushProducts(kb: string, which: ProductItem[]): Promise<void> {
    const started = performance.now();
    for (let i = 0; i < which.length; i += 200) {
      await ingestBulk(
        target,
        which.slice(i, i + 200).map((item) => ({
          integrationId: 'product-qa',
          knowledgeBaseId: kb,
          sourceType: item.sourceType,
          externalId: item.externalId,
          data: { title: item.title, content: item.content, url: item.url, sourceData: item.sourceData },
        })),
      );
    }
    await waitUntilIndexed(server);
    log(`indexed ${which.length} products into ${kb} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }

  async function askAll(set: QaSet, qs: ProductQuestion[], withContext: boolean): Promise<AskResponse[]> {
    const out: AskResponse[] = [];
    for (const q of qs) {
      const context = withContext ? { externalId: q.asin, url: productUrl(q.asin) } : undefined;
      out.push((await asker.ask(set.kb, { question: q.question, ...(context ? { context } : {}) })).response);
      if (out.length % 25 === 0) log(`${set.name}, ${withContext ? 'in context' : 'without context'}: ${out.length} of ${qs.length}`);
    }
    return out;
  }
} finally {
  await server.stop();
  if (values['data-dir'] === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);

function fail(message: string): never {
  throw new Error(message);
}

/** An answer as the results file keeps it, with what its quoted evidence is (null when it abstained). */
function brief(a: AskResponse, q: ProductQuestion) {
  const evidence = a.answered ? judgeEvidence(a.answer, q.candidates, { citations: a.citations, product: q.asin }) : null;
  return { answered: a.answered, answer: a.answer, cited: a.citations.map((c) => c.externalId), evidence, tookMs: a.tookMs };
}

/** The report's shares; evidence is judged on answered answerable questions. */
function score(qs: ProductQuestion[], answers: AskResponse[]) {
  let answerable = 0;
  let answered = 0;
  let evidenceAnswering = 0;
  let unanswerable = 0;
  let abstained = 0;
  let rightFirst = 0;
  let answeredAny = 0;
  let answeredRightFirst = 0;
  qs.forEach((q, i) => {
    const a = answers[i]!;
    if (a.citations[0]?.externalId === q.asin) rightFirst++;
    if (a.answered) {
      answeredAny++;
      if (a.citations[0]?.externalId === q.asin) answeredRightFirst++;
    }
    if (q.answerable) {
      answerable++;
      if (a.answered) {
        answered++;
        if (judgeEvidence(a.answer, q.candidates, { citations: a.citations, product: q.asin }).answering) evidenceAnswering++;
      }
    } else {
      unanswerable++;
      if (!a.answered) abstained++;
    }
  });
  const share = (x: number, n: number) => (n === 0 ? null : Math.round((x / n) * 1000) / 1000);
  const ms = answers.map((a) => a.tookMs).sort((x, y) => x - y);
  return {
    answerableAnswered: share(answered, answerable),
    evidenceAnswering: share(evidenceAnswering, answered),
    unanswerableAbstained: share(abstained, unanswerable),
    rightProductCitedFirst: share(rightFirst, qs.length),
    rightProductCitedFirstWhenAnswered: share(answeredRightFirst, answeredAny),
    counts: { answerable, answered, evidenceAnswering, unanswerable, abstained },
    medianTookMs: ms[Math.floor(ms.length / 2)] ?? null,
  };
}
