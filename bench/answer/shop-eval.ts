/**
 * The shop catalogue of test/helpers/shop-fixtures.ts asked through POST /knowledge-bases/{id}/ask
 * on a fresh server: per question, the answer, whether it holds the expected facts, and what is
 * wrong with it. Usage: node --import tsx bench/answer/shop-eval.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config.ts';
import { startServer } from '../../server/main.ts';
import { judgeShopAnswer, SHOP_KB, SHOP_QUESTIONS, shopBulk } from '../../test/helpers/shop-fixtures.ts';
import { benchEnv } from '../lib/server-child.ts';
import { ingestBulk, knowledgeBase } from '../retrieval/http-client.ts';
import { ask } from './run-questions.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-shop-'));
const server = await startServer(loadConfig(benchEnv(dataDir), { workers: 1 }));
try {
  const target = { url: server.url, key: server.services.keys.create({ name: 'shop eval', scopes: ['iq:import', 'iq:read'] }).value };
  await ingestBulk(target, shopBulk().items);
  while ((await knowledgeBase(target, SHOP_KB))?.pendingJobs !== 0) await new Promise((r) => setTimeout(r, 500));
  let ok = 0;
  let facts = 0;
  let factTotal = 0;
  for (const q of SHOP_QUESTIONS) {
    const answer = await ask(target, SHOP_KB, q.question);
    const verdict = judgeShopAnswer(q, answer);
    ok += verdict.ok ? 1 : 0;
    facts += verdict.factsFound;
    factTotal += q.facts.length;
    console.log(`${verdict.ok ? 'ok  ' : 'FAIL'} ${q.question}\n     ${answer.answered ? answer.answer : '(abstained)'}${verdict.ok ? '' : `\n     ${verdict.problems.join('; ')}`}`);
  }
  console.log(`\n${ok} of ${SHOP_QUESTIONS.length} questions answered well; ${facts} of ${factTotal} expected facts in the answers`);
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
