/**
 * Which questions calibrate and which are reported, so nothing is tuned on the figures it reports:
 * questions are dealt round-robin into ten folds by their position in the file; fold 0 is
 * reported, fold 5 calibrates (thresholds, sentence selection).
 */
import path from 'node:path';
import { EVAL_DIR, readJsonl } from '../lib/server-child.ts';
import type { Question } from './run-questions.ts';

export const REPORT_FOLD = 0;
export const CALIBRATION_FOLD = 5;

export function fold<T>(rows: T[], which: number, limit = Infinity): T[] {
  return rows.filter((_, i) => i % 10 === which).slice(0, limit);
}

/** A SQuAD dev question, as the eval file holds it. */
export type SquadQuestion = { question: string; gold_passage_id: string; answers: string[] };

export function squadQuestions(which: number, limit = Infinity): Question[] {
  return fold(readJsonl<SquadQuestion>(path.join(EVAL_DIR, 'squad-dev/questions.jsonl')), which, limit).map((q) => ({
    text: q.question,
    goldItem: q.gold_passage_id,
    goldAnswers: q.answers,
  }));
}

export function faqQuestions(which: number, limit = Infinity): Question[] {
  return fold(readJsonl<{ query: string; gold_faq_id: string }>(path.join(EVAL_DIR, 'stackfaq/queries.jsonl')), which, limit).map((q) => ({
    text: q.query,
    goldItem: q.gold_faq_id,
    goldAnswers: null,
  }));
}
