/**
 * LocalIQ's shop set (bench/answer/shop-set/: a florist, a hardware store with a trade counter, a
 * hair salon) on a real server: each business's items pushed through `POST /ingest/bulk`, its FAQ
 * uploaded through `POST /knowledge-bases/{id}/files`, then, once indexed, every visitor question
 * asked through `POST /knowledge-bases/{id}/ask`, a question about "this" with its page's
 * `context: {externalId, url}`, a follow-up with the question it follows and that answer as the
 * conversation. Each answer is scored right, partial, wrong or confidently wrong
 * (bench/answer/shop-set/score.ts); tables per business and per kind of question; every answer to
 * bench/results/. A server that rejects `context` is asked without it, and the report says so.
 *
 * Usage: npm run bench:shop-set [-- --out FILE] [--show]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AskResponse, ConversationTurn } from '../common/contract/ask.ts';
import { loadConfig } from '../server/config.ts';
import { startServer } from '../server/main.ts';
import { type ApiTarget, ingestBulk } from './retrieval/http-client.ts';
import { formatTally, scoreAnswer, type Scored, tally } from './answer/shop-set/score.ts';
import { loadShopSet, SHOP_SET_DIR, type ShopBusiness, type ShopSetQuestion } from './answer/shop-set/shop-set.ts';
import { ContextAsker } from './lib/ask-in-context.ts';
import { benchEnv } from './lib/server-child.ts';
import { waitUntilIndexed } from './lib/wait-indexed.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(import.meta.dirname, `results/shop-set-${new Date().toISOString().slice(0, 19).replace(/:/g, '')}.json`) },
    show: { type: 'boolean', default: false },
  },
});
const log = (line: string) => process.stderr.write(`[shop-set] ${line}\n`);

const businesses = loadShopSet();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-shop-set-'));
const server = await startServer(loadConfig(benchEnv(dataDir), { workers: 1 }));
type Row = { business: string; q: ShopSetQuestion; response: AskResponse; contextSent: boolean; score: Scored };
try {
  const target = { url: server.url, key: server.services.keys.create({ name: 'shop set', scopes: ['iq:import', 'iq:read'] }).value };
  for (const b of businesses) await push(target, b);
  await waitUntilIndexed(server);
  log(`indexed ${businesses.map((b) => `${b.knowledgeBaseId}: ${b.items.length} items and ${b.faqFile}`).join('; ')}`);

  const asker = new ContextAsker(target);
  const rows: Row[] = [];
  for (const b of businesses) {
    const answers = new Map<string, AskResponse>();
    for (const q of b.questions) {
      const item = q.context ? b.items.find((i) => i.externalId === q.context!.externalId)! : null;
      const context = item ? { externalId: item.externalId, ...(item.url ? { url: item.url } : {}) } : undefined;
      const conversation = q.followUpOf ? earlierTurns(b, q.followUpOf, answers) : undefined;
      const { response, contextSent } = await asker.ask(b.knowledgeBaseId, { question: q.question, ...(conversation ? { conversation } : {}), ...(context ? { context } : {}) });
      answers.set(q.id, response);
      const score = scoreAnswer(q, response);
      rows.push({ business: b.knowledgeBaseId, q, response, contextSent, score });
      if (values.show) log(`${score.verdict.padEnd(17)} ${q.id} ${q.question}\n    ${response.answered ? response.answer : '(abstained)'}`);
    }
  }
  if (asker.contextSupported === false) log('the server rejects `context` on /ask: questions about "this" were asked without the page they are asked on');

  const byBusiness = tally(rows, (r) => r.business, (r) => r.score.verdict);
  const byKind = tally(rows, (r) => r.q.kind, (r) => r.score.verdict);
  console.log(`${formatTally('business', byBusiness)}\n\n${formatTally('kind', byKind)}`);
  const all = byBusiness.all!;
  console.log(
    `\nright ${(all.rightShare * 100).toFixed(1)} % (goal ≥ 90 %), confidently wrong ${(all.confidentlyWrongShare * 100).toFixed(1)} % (goal ≤ 2 %); ` +
      `context on /ask: ${asker.contextSupported === true ? 'sent' : 'rejected by the server, asked without it'}`,
  );
  fs.mkdirSync(path.dirname(values.out), { recursive: true });
  fs.writeFileSync(
    values.out,
    JSON.stringify(
      {
        set: path.relative(process.cwd(), SHOP_SET_DIR),
        contextSupported: asker.contextSupported,
        byBusiness,
        byKind,
        answers: rows.map((r) => ({
          business: r.business,
          id: r.q.id,
          kind: r.q.kind,
          question: r.q.question,
          context: r.q.context ?? null,
          contextSent: r.contextSent,
          followUpOf: r.q.followUpOf ?? null,
          expect: r.q.expect,
          forbid: r.q.forbid ?? [],
          answered: r.response.answered,
          answer: r.response.answer,
          cited: r.response.citations.map((c) => c.externalId),
          ...r.score,
          tookMs: r.response.tookMs,
        })),
      },
      null,
      2,
    ),
  );
  log(`every answer: ${values.out}`);
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);

/** The business's items through /ingest/bulk and its FAQ through the files endpoint, as an owner's shop system would. */
async function push(target: ApiTarget, b: ShopBusiness): Promise<void> {
  await ingestBulk(
    target,
    b.items.map((item) => ({
      integrationId: 'shop-set',
      knowledgeBaseId: b.knowledgeBaseId,
      sourceType: item.sourceType,
      externalId: item.externalId,
      data: { title: item.title, content: item.content, ...(item.url ? { url: item.url } : {}), ...(item.sourceData ? { sourceData: item.sourceData } : {}) },
    })),
  );
  const form = new FormData();
  form.append('sourceType', 'ARTICLE');
  form.append('file', new Blob([fs.readFileSync(path.join(SHOP_SET_DIR, b.faqFile))], { type: 'text/markdown' }), b.faqFile);
  const res = await fetch(`${target.url}/knowledge-bases/${encodeURIComponent(b.knowledgeBaseId)}/files`, {
    method: 'POST',
    headers: { 'x-api-key': target.key },
    body: form,
  });
  if (res.status !== 200) throw new Error(`uploading ${b.faqFile} answered ${res.status}: ${await res.text()}`);
}

/** The conversation before a follow-up: each question it follows, oldest first, with the answer it got. */
function earlierTurns(b: ShopBusiness, id: string, answers: Map<string, AskResponse>): ConversationTurn[] {
  const q = b.questions.find((x) => x.id === id)!;
  const before = q.followUpOf ? earlierTurns(b, q.followUpOf, answers) : [];
  return [...before, { role: 'user', content: q.question }, { role: 'assistant', content: answers.get(id)!.answer }];
}
