/**
 * Same-subject questions the knowledge base cannot answer, made from SQuAD v1.1 and StackFAQ: a
 * second knowledge base of each set holds every other paragraph of each article (every other
 * thread), so a question whose gold paragraph was left out is still about an article the knowledge
 * base covers, and has no answer there. Questions whose gold paragraph stayed are the answerable
 * ones of the same knowledge base. A question counts as unanswerable only if none of its gold
 * answers appears in any paragraph that stayed.
 */
import path from 'node:path';
import type { Dataset } from '../retrieval/datasets.ts';
import { EVAL_DIR, readJsonl } from '../lib/server-child.ts';
import { normalizeAnswer } from './gold.ts';
import type { Question } from './run-questions.ts';
import { faqQuestions, squadQuestions } from './subsets.ts';

/** "Super_Bowl_50#3" → 3, "faq12" → 12: the paragraph's place in its article, the thread's in the set. */
function ordinal(externalId: string): number {
  return Number(/(\d+)$/.exec(externalId)?.[1] ?? 0);
}

/** Whether an item stays in the hold-out knowledge base (even ordinals stay, odd ones are left out). */
export function staysInHoldout(externalId: string): boolean {
  return ordinal(externalId) % 2 === 0;
}

/** The hold-out knowledge base of a dataset: the same items but every other one. */
export function holdoutDataset(dataset: Dataset): Dataset {
  const knowledgeBaseId = `${dataset.knowledgeBaseId}-holdout`;
  return {
    ...dataset,
    knowledgeBaseId,
    items: dataset.items.filter((i) => staysInHoldout(i.externalId)).map((i) => ({ ...i, knowledgeBaseId })),
  };
}

export type HoldoutQuestions = { answerable: Question[]; unanswerable: Question[] };

export function squadHoldoutQuestions(which: number, limit = Infinity): HoldoutQuestions {
  const kept = readJsonl<{ id: string; text: string }>(path.join(EVAL_DIR, 'squad-dev/passages.jsonl'))
    .filter((p) => staysInHoldout(p.id))
    .map((p) => ` ${normalizeAnswer(p.text)} `);
  const answerSomewhere = (q: Question) =>
    q.goldAnswers!.some((g) => {
      const gold = normalizeAnswer(g);
      return gold.length > 0 && kept.some((text) => text.includes(` ${gold} `));
    });
  const all = squadQuestions(which);
  return {
    answerable: all.filter((q) => staysInHoldout(q.goldItem)).slice(0, limit),
    unanswerable: all.filter((q) => !staysInHoldout(q.goldItem) && !answerSomewhere(q)).slice(0, limit),
  };
}

export function faqHoldoutQuestions(which: number, limit = Infinity): HoldoutQuestions {
  const all = faqQuestions(which);
  return {
    answerable: all.filter((q) => staysInHoldout(q.goldItem)).slice(0, limit),
    unanswerable: all.filter((q) => !staysInHoldout(q.goldItem)).slice(0, limit),
  };
}
