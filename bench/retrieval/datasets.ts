/**
 * The three public eval sets of ../shared/eval, turned into what the product takes (ingest items)
 * and what the eval scores (queries with the external ids of their relevant items). The mapping
 * is the one the eval README suggests.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IngestItem } from '../../common/contract/ingest.ts';
import { EVAL_DIR, readJsonl } from '../lib/server-child.ts';
import { type Metric, ndcgAt, recallAt } from './metrics.ts';

export const DATASET_NAMES = ['scifact', 'squad', 'stackfaq'] as const;
export type DatasetName = (typeof DATASET_NAMES)[number];

export type EvalQuery = { id: string; text: string; relevant: Set<string> };

export type Dataset = {
  name: DatasetName;
  knowledgeBaseId: string;
  items: IngestItem[];
  queries: EvalQuery[];
  /** Results asked for per query: the deepest cut-off any of its metrics reads. */
  topK: number;
  metrics: Metric[];
};

const INTEGRATION = 'eval';

function item(knowledgeBaseId: string, sourceType: 'ARTICLE' | 'PAGE', externalId: string, title: string, content: string): IngestItem {
  return { integrationId: INTEGRATION, knowledgeBaseId, sourceType, externalId, data: { title, content } };
}

function scifact(root: string): Dataset {
  const dir = path.join(root, 'scifact');
  const kb = 'eval-scifact';
  const corpus = readJsonl<{ _id: string; title: string; text: string }>(path.join(dir, 'corpus.jsonl'));
  const relevant = new Map<string, Set<string>>();
  for (const line of fs.readFileSync(path.join(dir, 'qrels-train.tsv'), 'utf8').split('\n').slice(1)) {
    const [queryId, docId, score] = line.split('\t');
    if (!queryId || !docId || Number(score) <= 0) continue;
    relevant.set(queryId, (relevant.get(queryId) ?? new Set()).add(docId));
  }
  const queries = readJsonl<{ _id: string; text: string }>(path.join(dir, 'queries-train.jsonl'))
    .filter((q) => relevant.has(q._id))
    .map((q) => ({ id: q._id, text: q.text, relevant: relevant.get(q._id)! }));
  return {
    name: 'scifact',
    knowledgeBaseId: kb,
    items: corpus.map((doc) => item(kb, 'ARTICLE', doc._id, doc.title, doc.text)),
    queries,
    topK: 100,
    metrics: [ndcgAt(10), recallAt(100)],
  };
}

function squad(root: string): Dataset {
  const dir = path.join(root, 'squad-dev');
  const kb = 'eval-squad';
  const passages = readJsonl<{ id: string; title: string; text: string }>(path.join(dir, 'passages.jsonl'));
  const questions = readJsonl<{ id: string; question: string; gold_passage_id: string }>(path.join(dir, 'questions.jsonl'));
  return {
    name: 'squad',
    knowledgeBaseId: kb,
    // SQuAD titles are article names with underscores ("Super_Bowl_50"); the passages file already spaces them.
    items: passages.map((p) => item(kb, 'ARTICLE', p.id, p.title, p.text)),
    queries: questions.map((q) => ({ id: q.id, text: q.question, relevant: new Set([q.gold_passage_id]) })),
    // R@20 is not asked for, but BASELINES.md reports it, so it costs nothing to compare.
    topK: 20,
    metrics: [recallAt(1), recallAt(5), recallAt(20)],
  };
}

function stackfaq(root: string): Dataset {
  const dir = path.join(root, 'stackfaq');
  const kb = 'eval-stackfaq';
  const faqs = readJsonl<{ id: string; question: string; answers: string[] }>(path.join(dir, 'faqs.jsonl'));
  const queries = readJsonl<{ id: string; query: string; gold_faq_id: string }>(path.join(dir, 'queries.jsonl'));
  return {
    name: 'stackfaq',
    knowledgeBaseId: kb,
    items: faqs.map((f) => item(kb, 'PAGE', f.id, f.question, f.answers.join('\n\n'))),
    queries: queries.map((q) => ({ id: q.id, text: q.query, relevant: new Set([q.gold_faq_id]) })),
    topK: 5,
    metrics: [recallAt(1), recallAt(5)],
  };
}

const LOADERS: Record<DatasetName, (root: string) => Dataset> = { scifact, squad, stackfaq };

export function loadDataset(name: DatasetName, root = EVAL_DIR): Dataset {
  return LOADERS[name](root);
}
