/**
 * What the visitor side adds to an answer: time to the first streamed piece and to the whole
 * answer, p50/p95, for 1 and for 20 concurrent visitors, through `POST /v1/widget/{id}/ask`
 * (origin gate, visitor session, limits, the turn stored) beside `POST /knowledge-bases/{id}/ask`
 * with `"stream": true` and an API key, against the same knowledge base in the same run. The two
 * paths take turns round by round, so both meet the same machine.
 *
 * The knowledge base: the eval samples in test/fixtures/eval-sample (150 SQuAD paragraphs and 50
 * StackFAQ threads, 200 real items). The questions: the StackFAQ questions and "What do you know
 * about <title>?" for the SQuAD articles. The widget's limits are raised out of the way; each
 * visitor comes from an address of its own (the bench is the trusted proxy).
 *
 * Usage: node --import tsx bench/widget-latency.ts [--questions 60] [--rounds 3] [--concurrency 1,20]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { openServices } from '../server/services.ts';
import { benchEnv, call, drain, percentile, readJsonl, startServerChild, stopServerChild, tempDir } from './lib/server-child.ts';

const { values } = parseArgs({
  options: {
    questions: { type: 'string', default: '60' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,20' },
  },
});
const QUESTIONS_PER_ROUND = Number(values.questions);
const ROUNDS = Number(values.rounds);
const LEVELS = values.concurrency.split(',').map(Number);
const KB = 'bench-widget';
const ORIGIN = 'https://shop.example';
const SAMPLES = path.resolve(import.meta.dirname, '../test/fixtures/eval-sample');
const log = (line: string) => process.stderr.write(`[widget-latency] ${line}\n`);

type Timing = { firstMs: number; doneMs: number };
type Path = 'api' | 'widget';

const squad = readJsonl<{ id: string; title: string; text: string }>(path.join(SAMPLES, 'squad-passages.jsonl'));
const faqs = readJsonl<{ id: string; question: string; answers: string[] }>(path.join(SAMPLES, 'stackfaq-faqs.jsonl'));
const items = [
  ...squad.map((p) => ({ externalId: p.id, title: p.title, content: p.text })),
  ...faqs.map((f) => ({ externalId: f.id, title: f.question, content: f.answers.join('\n\n') })),
];
const questions = [...faqs.map((f) => f.question), ...[...new Set(squad.map((p) => p.title))].map((t) => `What do you know about ${t}?`)];

/** Reads a streamed answer, timing its first `answer` event and its `done` from the request's start. */
async function timedStream(url: string, headers: Record<string, string>, body: unknown): Promise<Timing> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let firstMs = NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    if (Number.isNaN(firstMs) && buffer.includes('event: answer\n')) firstMs = performance.now() - started;
    if (/event: done\n/.test(buffer)) {
      const doneMs = performance.now() - started;
      await reader.cancel();
      return { firstMs: Number.isNaN(firstMs) ? doneMs : firstMs, doneMs };
    }
    if (/event: error\n/.test(buffer)) throw new Error(`the answer failed: ${buffer}`);
  }
  throw new Error(`the stream ended without done: ${buffer}`);
}

const summary = (timings: Timing[]) => ({
  n: timings.length,
  firstMs: { p50: round(percentile(timings.map((t) => t.firstMs), 50)), p95: round(percentile(timings.map((t) => t.firstMs), 95)) },
  doneMs: { p50: round(percentile(timings.map((t) => t.doneMs), 50)), p95: round(percentile(timings.map((t) => t.doneMs), 95)) },
});
const round = (ms: number) => Math.round(ms * 10) / 10;
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

async function main(): Promise<void> {
  const dataDir = tempDir();
  const services = await openServices(loadConfig(benchEnv(dataDir)));
  const widgetId = services.widgets.create({
    name: 'Bench', knowledgeBaseIds: [KB], allowedOrigins: [ORIGIN],
    limits: { visitorQuestionsPerMinute: 600, widgetQuestionsPerMinute: 6_000, dailyQuestions: 1_000_000 },
  }).id;
  services.close();
  const server = await startServerChild(dataDir, { LOCALIQ_TRUSTED_PROXY: '127.0.0.1' });
  try {
    log(`pushing ${items.length} items`);
    await call(server, 'POST', '/ingest/bulk', {
      items: items.map((item) => ({
        integrationId: 'eval', knowledgeBaseId: KB, sourceType: 'ARTICLE', externalId: item.externalId,
        data: { title: item.title, content: item.content },
      })),
    });
    await drain(server, KB);
    log('indexed; warming up');

    const visitors = Math.max(...LEVELS);
    const tokens: string[] = [];
    for (let v = 0; v < visitors; v++) {
      const res = await fetch(`${server.url}/v1/widget/${widgetId}/sessions`, { method: 'POST', headers: { origin: ORIGIN, 'x-forwarded-for': `10.0.0.${v + 1}` } });
      tokens.push(((await res.json()) as { token: string }).token);
    }
    const ask = (which: Path, visitor: number, question: string) =>
      which === 'api'
        ? timedStream(`${server.url}/knowledge-bases/${KB}/ask`, { 'x-api-key': server.key }, { question, stream: true })
        : timedStream(
            `${server.url}/v1/widget/${widgetId}/ask`,
            { origin: ORIGIN, authorization: `Bearer ${tokens[visitor]}`, 'x-forwarded-for': `10.0.0.${visitor + 1}` },
            { question },
          );
    for (const which of ['api', 'widget'] as const) for (let i = 0; i < 10; i++) await ask(which, 0, questions[i % questions.length]!);

    const results: Record<string, Record<Path, Timing[]>> = {};
    for (const level of LEVELS) {
      results[level] = { api: [], widget: [] };
      for (let r = 0; r < ROUNDS; r++) {
        // Who goes first alternates, so neither path always meets a warmer or a busier server.
        const order: Path[] = r % 2 === 0 ? ['api', 'widget'] : ['widget', 'api'];
        for (const which of order) {
          let next = 0;
          const worker = async (visitor: number) => {
            while (next < QUESTIONS_PER_ROUND) {
              const question = questions[(r * QUESTIONS_PER_ROUND + next++) % questions.length]!;
              results[level]![which].push(await ask(which, visitor, question));
            }
          };
          await Promise.all(Array.from({ length: level }, (_, v) => worker(v)));
        }
        log(`${level} visitor(s): round ${r + 1}/${ROUNDS} done`);
      }
    }

    const report = Object.fromEntries(
      Object.entries(results).map(([level, byPath]) => {
        const api = summary(byPath.api);
        const widget = summary(byPath.widget);
        return [
          `${level} concurrent`,
          {
            api,
            widget,
            widgetOverApiMedian: {
              firstMs: ratio(widget.firstMs.p50, api.firstMs.p50),
              doneMs: ratio(widget.doneMs.p50, api.doneMs.p50),
            },
          },
        ];
      }),
    );
    console.log(JSON.stringify({ items: items.length, questionsPerRound: QUESTIONS_PER_ROUND, rounds: ROUNDS, report }, null, 2));
  } finally {
    await stopServerChild(server);
  }
}

await main();
