/**
 * What an ask costs on this checkout against another (an earlier version), in one process, taking
 * turns question by question, so load on a shared machine falls on both alike: each checkout's
 * own server (its own code, imported from its folder) on its own copy of an index kept by
 * `npm run bench:answers -- --keep` (two servers cannot hold one data folder), no pipeline, every
 * fold-0 SQuAD and StackFAQ question asked in process (`Assistant.ask`) of each. Medians, p95 and
 * the ratio of the medians (this checkout / the other).
 *
 * Usage: node --import tsx bench/answer/ask-latency-ab.ts --before DIR --data-dir DIR --before-data-dir DIR [--limit 200] [--rounds 2] [--product-qa]
 *   --before: the other checkout (its `server/` is imported as it is, with tsx);
 *   --data-dir / --before-data-dir: two copies of one kept index.
 *   --product-qa: hetPQA's report-fold questions asked on their product's page (AskQuestion with
 *   `context`), on two copies of an index `bench:product-qa --data-dir` kept, instead of SQuAD and StackFAQ.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { benchEnv } from '../lib/server-child.ts';
import { foldOf, PRODUCT_QA_KB, productUrl, questionsOf, readEvidence } from '../product-qa/dataset.ts';
import { faqQuestions, REPORT_FOLD, squadQuestions } from './subsets.ts';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    'data-dir': { type: 'string' },
    'before-data-dir': { type: 'string' },
    limit: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '2' },
    'product-qa': { type: 'boolean', default: false },
  },
});
if (!values.before || !values['data-dir'] || !values['before-data-dir']) {
  throw new Error('--before DIR, --data-dir DIR and --before-data-dir DIR are required');
}
const log = (line: string) => process.stderr.write(`[ask-latency-ab] ${line}\n`);

type PageContext = { externalId: string; url: string };
type Asking = { ask(kb: string, question: string, context?: PageContext): Promise<void>; stop(): Promise<void> };

/** A checkout's server on a data folder, without a pipeline: its assistant asked in process. */
async function serverOf(checkout: string, dataDir: string): Promise<Asking> {
  const load = (file: string) => import(pathToFileURL(path.join(checkout, file)).href);
  const { loadConfig } = await load('server/config.ts');
  const { startServer } = await load('server/main.ts');
  const server = await startServer(loadConfig(benchEnv(path.resolve(dataDir)), { workers: 0 }));
  await server.services.keywords.ready();
  await server.services.embedding.index()?.ready();
  const signal = new AbortController().signal;
  return {
    // On a product's page the ask goes the one way every asker's does (AskQuestion), which finds the page's item.
    ask: async (kb, question, context) => {
      if (context) await server.services.askQuestion.ask({ knowledgeBaseIds: [kb], request: { question, context }, asker: { kind: 'api', keyId: null }, signal });
      else await server.services.assistant.ask(kb, { question }, { signal });
    },
    stop: () => server.stop(),
  };
}

const thisCheckout = path.resolve(import.meta.dirname, '../..');
const current = await serverOf(thisCheckout, values['data-dir']);
const before = await serverOf(path.resolve(values.before), values['before-data-dir']);
const limit = Number(values.limit);
const questions: Array<{ kb: string; text: string; context?: PageContext }> = values['product-qa']
  ? questionsOf(readEvidence())
      .filter((q) => foldOf(q.asin) === 'report')
      .slice(0, limit)
      .map((q) => ({ kb: PRODUCT_QA_KB, text: q.question, context: { externalId: q.asin, url: productUrl(q.asin) } }))
  : [
      ...squadQuestions(REPORT_FOLD, limit).map((q) => ({ kb: 'eval-squad', text: q.text })),
      ...faqQuestions(REPORT_FOLD, limit).map((q) => ({ kb: 'eval-stackfaq', text: q.text })),
    ];
const times = { current: [] as number[], before: [] as number[] };
const time = async (name: keyof typeof times, server: Asking, kb: string, text: string, context?: PageContext) => {
  const started = performance.now();
  await server.ask(kb, text, context);
  times[name].push(performance.now() - started);
};
try {
  // One warm-up pass each: the first asks load the model and fill caches.
  for (const q of questions.slice(0, 10)) {
    await current.ask(q.kb, q.text, q.context);
    await before.ask(q.kb, q.text, q.context);
  }
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [i, q] of questions.entries()) {
      // Who goes first alternates, so neither always finds the caches warm.
      if ((i + round) % 2 === 0) {
        await time('current', current, q.kb, q.text, q.context);
        await time('before', before, q.kb, q.text, q.context);
      } else {
        await time('before', before, q.kb, q.text, q.context);
        await time('current', current, q.kb, q.text, q.context);
      }
    }
    log(`round ${round + 1} done`);
  }
} finally {
  await current.stop();
  await before.stop();
}
const quantile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const round2 = (v: number) => Math.round(v * 100) / 100;
const summary = (xs: number[]) => ({ median: round2(quantile(xs, 0.5)), p95: round2(quantile(xs, 0.95)) });
console.log(
  JSON.stringify(
    {
      asks: times.current.length,
      currentMs: summary(times.current),
      beforeMs: summary(times.before),
      medianRatio: round2(quantile(times.current, 0.5) / quantile(times.before, 0.5)),
    },
    null,
    2,
  ),
);
process.exit(0);
