/**
 * LocalIQ's own shop set: three small businesses (a florist, a hardware store with a trade
 * counter, a hair salon), each a JSON file here with its items (articles, services, products with
 * `sourceData` and `data.url`), the Markdown FAQ it uploads, and the questions its visitors type,
 * each with the facts a right answer holds (and those it must not), or "abstain". Read by
 * bench/shop-eval-set.ts; scored by score.ts. Written for LocalIQ, not tuned to its answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SourceType } from '../../../common/contract/ingest.ts';

export const SHOP_SET_DIR = import.meta.dirname;
export const SHOP_SET_FILES = ['florist.json', 'hardware.json', 'salon.json'];

export type ShopSetItem = {
  externalId: string;
  sourceType: SourceType;
  title: string;
  content: string;
  url?: string;
  sourceData?: Record<string, unknown>;
};

export type ShopSetQuestion = {
  id: string;
  /** What the question tests: price, list, lead-time, this (asked on an item's page), follow-up, abstain… */
  kind: string;
  question: string;
  /** Facts the answer must hold (plain text, case-insensitive, or "/regex/flags"), or "abstain". */
  expect: string[] | 'abstain';
  /**
   * Facts false for this visitor, which make an answer confidently wrong: "Yes" where the content
   * says no, the other audience's terms (trade for a private customer). Not another item's value
   * that a right answer may quote beside the asked one, named (a sentence holding both prices).
   */
  forbid?: string[];
  /** The item whose page the visitor is on. */
  context?: { externalId: string };
  /** Asked after this question (by id) in the same conversation, with its answer as the assistant's turn. */
  followUpOf?: string;
};

export type ShopBusiness = {
  knowledgeBaseId: string;
  name: string;
  /** The FAQ file beside this one, uploaded through POST /knowledge-bases/{id}/files. */
  faqFile: string;
  items: ShopSetItem[];
  questions: ShopSetQuestion[];
};

export function loadShopSet(dir = SHOP_SET_DIR, files = SHOP_SET_FILES): ShopBusiness[] {
  return files.map((file) => checkBusiness(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as ShopBusiness, file));
}

/** The set's own consistency: ids unique, follow-ups after what they follow, contexts naming an item. */
export function checkBusiness(b: ShopBusiness, file: string): ShopBusiness {
  const fail = (why: string) => {
    throw new Error(`${file}: ${why}`);
  };
  const items = new Set(b.items.map((i) => i.externalId));
  if (items.size !== b.items.length) fail('two items share an externalId');
  const seen = new Set<string>();
  for (const q of b.questions) {
    if (seen.has(q.id)) fail(`question id ${q.id} twice`);
    if (q.expect !== 'abstain' && (!Array.isArray(q.expect) || q.expect.length === 0)) fail(`${q.id}: expect is neither facts nor "abstain"`);
    if (q.followUpOf !== undefined && !seen.has(q.followUpOf)) fail(`${q.id} follows ${q.followUpOf}, which is not asked before it`);
    if (q.context && !items.has(q.context.externalId)) fail(`${q.id}: context names no item (${q.context.externalId})`);
    for (const fact of [...(q.expect === 'abstain' ? [] : q.expect), ...(q.forbid ?? [])]) factMatcher(fact);
    seen.add(q.id);
  }
  return b;
}

/** A fact as a test of an answer's text: "/source/flags" is a regular expression, anything else a case-insensitive phrase. */
export function factMatcher(fact: string): (answer: string) => boolean {
  const re = /^\/(.+)\/([a-z]*)$/s.exec(fact);
  if (re) {
    const pattern = new RegExp(re[1]!, re[2]);
    return (answer) => pattern.test(answer);
  }
  const phrase = normalizeSpaces(fact).toLowerCase();
  return (answer) => normalizeSpaces(answer).toLowerCase().includes(phrase);
}

function normalizeSpaces(text: string): string {
  return text.replace(/[\s\u00a0\u202f]+/g, ' ');
}
