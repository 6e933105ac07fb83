/**
 * The extractive assistant in a knowledge base written in German or French
 * (bench/retrieval/language-set.ts): the real server in process with its pipeline and the default
 * embedder (USE-lite, English), each set pushed through POST /ingest/bulk into its own knowledge
 * base, every query of the set and every question it cannot answer asked through
 * POST /knowledge-bases/{id}/ask (extractive, hybrid, no language model): first while the
 * knowledge base is read as English (the default), then once its language is set and re-indexed.
 *
 * Measured per set and reading: of the set's queries (one relevant item each), how many are
 * answered, how many answers cite the relevant item first, and cite it at all; of the questions
 * no item answers, how many are declined. Then, in the language's reading, the same counts were
 * the coverage-only support threshold (abstention.ts) another, and were support English's blend of
 * coverage and the embedder's cosine: what the threshold and the choice of coverage are judged by.
 * Results in docs/retrieval.md ("Languages").
 *
 * Usage: node --import tsx bench/answer-language-eval.ts [--out FILE] [--show]
 *   --show  prints every question with its answer
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/main.ts';
import { ABSTAIN_BELOW, ABSTAIN_BELOW_COVERAGE_ONLY, support } from '../server/retrieval/answer/abstention.ts';
import { benchEnv } from './lib/server-child.ts';
import { FRENCH_SET, GERMAN_SET, type LanguageSet } from './retrieval/language-set.ts';
import { waitUntilIndexed } from './lib/wait-indexed.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(os.tmpdir(), 'localiq-answer-language-eval.md') },
    show: { type: 'boolean', default: false },
  },
});
const log = (line: string) => process.stderr.write(`[answer-language-eval] ${line}\n`);

type Answer = { answered: boolean; answer: string; citations: Array<{ externalId: string }> };
type Row = { reading: string; answered: number; citedFirst: number; cited: number; declined: number };
const THRESHOLDS = [0.3, ABSTAIN_BELOW_COVERAGE_ONLY, 0.4, 0.45, 0.5];

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-answer-language-eval-'));
const server = await startServer(loadConfig({ ...process.env, ...benchEnv(dataDir) }, { workers: 2 }));
const report: string[] = [`Answer language eval, ${new Date().toISOString()}, ${os.availableParallelism()} cores, node ${process.version}`, ''];
try {
  const key = server.services.keys.create({ name: 'answer language eval', scopes: ['iq:import', 'iq:read'] }).value;
  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${server.url}${route}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${route}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  for (const set of [GERMAN_SET, FRENCH_SET]) {
    const items = set.items.map((item) => ({
      integrationId: 'eval', knowledgeBaseId: `shop-${set.language}`, sourceType: 'PRODUCT', externalId: item.id,
      data: { title: item.title, content: item.content },
    }));
    await post('/ingest/bulk', { items });
  }
  await waitUntilIndexed(server);

  const evaluate = async (set: LanguageSet, kb: string, reading: string): Promise<Row> => {
    const ask = (question: string) => post(`/knowledge-bases/${kb}/ask`, { question }) as Promise<Answer>;
    const row: Row = { reading, answered: 0, citedFirst: 0, cited: 0, declined: 0 };
    for (const { query, relevant } of set.queries) {
      const res = await ask(query);
      if (values.show) log(`${reading} | ${query} [${relevant}] → ${res.answered ? `${res.citations.map((c) => c.externalId).join(',')}: ${res.answer}` : '(declined)'}`);
      if (!res.answered) continue;
      row.answered++;
      if (res.citations[0]?.externalId === relevant) row.citedFirst++;
      if (res.citations.some((c) => c.externalId === relevant)) row.cited++;
    }
    for (const question of set.unanswerable) {
      const res = await ask(question);
      if (values.show) log(`${reading} | ${question} [none] → ${res.answered ? `${res.citations.map((c) => c.externalId).join(',')}: ${res.answer}` : '(declined)'}`);
      if (!res.answered) row.declined++;
    }
    return row;
  };

  /** Best coverage of each question (its best quotable sentence's item) against the thresholds. */
  const sweep = async (set: LanguageSet, kb: string): Promise<string[]> => {
    const analyze = (question: string) => server.services.assistant.analyze(kb, { question }, new AbortController().signal);
    const answerable: Array<{ coverage: number; blended: number; right: boolean }> = [];
    for (const { query, relevant } of set.queries) {
      const a = await analyze(query);
      const best = a.scored.find((s) => s.quotable);
      const right = best !== undefined && a.candidates[best.passage]!.item.externalId === relevant;
      answerable.push({ coverage: a.bestCoverage, blended: support(a.bestCoverage, a.bestCosine).score, right });
    }
    const unanswerable: Array<{ coverage: number; blended: number }> = [];
    for (const question of set.unanswerable) {
      const a = await analyze(question);
      unanswerable.push({ coverage: a.bestCoverage, blended: support(a.bestCoverage, a.bestCosine).score });
    }
    const lines = ['| support | answered | best sentence from the relevant item | declined (no answer in the set) |', '|---|---|---|---|'];
    const line = (label: string, passes: (q: { coverage: number; blended: number }) => boolean) => {
      const answered = answerable.filter(passes);
      const declined = unanswerable.filter((q) => !passes(q)).length;
      lines.push(`| ${label} | ${answered.length}/${answerable.length} | ${answered.filter((a) => a.right).length}/${answerable.length} | ${declined}/${unanswerable.length} |`);
    };
    for (const t of THRESHOLDS) line(`coverage ≥ ${t}${t === ABSTAIN_BELOW_COVERAGE_ONLY ? ' (shipped)' : ''}`, (q) => q.coverage >= t);
    line(`English's: 0.5 × coverage + 0.5 × cosine ≥ ${ABSTAIN_BELOW}`, (q) => q.blended >= ABSTAIN_BELOW);
    return lines;
  };

  for (const set of [GERMAN_SET, FRENCH_SET]) {
    const kb = `shop-${set.language}`;
    log(`${kb}: read as English`);
    const rows = [await evaluate(set, kb, 'English (default)')];
    server.services.search.updateKnowledgeBaseSettings(kb, { language: set.language });
    await server.services.keywordReindexer.idle();
    await server.services.keywordIndexes.of(set.language).ready();
    log(`${kb}: read as ${set.language}`);
    rows.push(await evaluate(set, kb, set.language));
    const n = set.queries.length;
    const u = set.unanswerable.length;
    report.push(`### ${set.language === 'de' ? 'German' : 'French'}: ${set.items.length} items, ${n} queries, ${u} questions no item answers`, '');
    report.push('| keyword language | answered | relevant item cited first | cited at all | declined (no answer in the set) |', '|---|---|---|---|---|');
    for (const r of rows) report.push(`| ${r.reading} | ${r.answered}/${n} | ${r.citedFirst}/${n} | ${r.cited}/${n} | ${r.declined}/${u} |`);
    report.push('', ...(await sweep(set, kb)), '');
  }
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
fs.writeFileSync(values.out, report.join('\n'));
process.stdout.write(report.join('\n') + '\n');
log(`written to ${values.out}`);
