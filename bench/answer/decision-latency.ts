/**
 * What the decision whether the passages answer costs an ask: the same questions asked in process
 * of the assistant as shipped and of one with the support threshold alone (no decision), taking
 * turns question by question on one index, so load on a shared machine falls on both alike.
 * The decision reads the vectors the retrieval already holds; it embeds nothing.
 *
 * Usage: node --import tsx bench/answer/decision-latency.ts --data-dir DIR [--limit 200] [--rounds 3]
 *   DIR is a data folder kept by `npm run bench:answers -- --keep`.
 */
import { parseArgs } from 'node:util';
import { Assistant, DEFAULT_TUNING } from '../../server/retrieval/answer/assistant.ts';
import { TermStatsRepo } from '../../server/storage/term-stats-repo.ts';
import { startIndexedSets } from './indexed-sets.ts';
import { REPORT_FOLD, squadQuestions } from './subsets.ts';

const { values } = parseArgs({
  options: { 'data-dir': { type: 'string' }, limit: { type: 'string', default: '200' }, rounds: { type: 'string', default: '3' } },
});
const log = (line: string) => process.stderr.write(`[decision-latency] ${line}\n`);
const sets = await startIndexedSets({ dataDir: values['data-dir'], keep: true, log });
try {
  const { services } = sets.server;
  const make = (decision: typeof DEFAULT_TUNING.decision) =>
    new Assistant(services.search, services.embedding, new TermStatsRepo(services.db), services.llmSettings, { ...DEFAULT_TUNING, decision });
  const shipped = make(DEFAULT_TUNING.decision);
  const gateOnly = make(null);
  const signal = new AbortController().signal;
  const questions = squadQuestions(REPORT_FOLD, Number(values.limit));
  const times = { shipped: [] as number[], gateOnly: [] as number[] };
  const time = async (name: keyof typeof times, assistant: Assistant, question: string) => {
    const started = performance.now();
    await assistant.ask(sets.squad.knowledgeBaseId, { question }, { signal });
    times[name].push(performance.now() - started);
  };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const [i, q] of questions.entries()) {
      // Who goes first alternates, so neither always finds the caches warm.
      if ((i + round) % 2 === 0) {
        await time('shipped', shipped, q.text);
        await time('gateOnly', gateOnly, q.text);
      } else {
        await time('gateOnly', gateOnly, q.text);
        await time('shipped', shipped, q.text);
      }
    }
  }
  const quantile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  const summary = (xs: number[]) => ({ median: round(quantile(xs, 0.5)), p95: round(quantile(xs, 0.95)) });
  const report = {
    asks: times.shipped.length,
    shippedMs: summary(times.shipped),
    supportThresholdAloneMs: summary(times.gateOnly),
    medianRatio: round(quantile(times.shipped, 0.5) / quantile(times.gateOnly, 0.5)),
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await sets.close();
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
