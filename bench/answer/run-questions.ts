/** Asks a set of questions through POST /knowledge-bases/{id}/ask (and /search for recall), one at a time. */
import type { AskResponse, ConversationTurn } from '../../common/contract/ask.ts';
import { percentile } from '../lib/server-child.ts';
import { type ApiTarget, search } from '../retrieval/http-client.ts';
import { containsGold } from './gold.ts';

export type Question = {
  text: string;
  goldItem: string;
  goldAnswers: string[] | null;
  /** Earlier turns sent with the question. */
  conversation?: ConversationTurn[];
  /** The item the conversation was about before this question, when it is another one. */
  previousItem?: string;
};

export type AnswerRun = {
  knowledgeBaseId: string;
  questions: number;
  answered: number;
  /** Answers whose text contains a gold answer (abstentions count as misses); null without gold answers. */
  goldInAnswer: number | null;
  /** The gold item among the passages search returns for the question at topK 5. */
  recallAt5: number;
  /** The gold item among the answer's citations, and as its first citation. */
  goldCited: number;
  goldCitedFirst: number;
  /** Answers quoting a sentence that asks ("How do I …? [1]") rather than one that answers. */
  quotingQuestion: number;
  /** Answers citing first the item the conversation was about before (questions with `previousItem` only). */
  previousCitedFirst: number | null;
  answerChars: { median: number };
  /** Client round trip of the ask request, ms. */
  latencyMs: { median: number; p95: number };
};

export async function ask(target: ApiTarget, kb: string, question: string, conversation?: ConversationTurn[]): Promise<AskResponse> {
  const res = await fetch(`${target.url}/knowledge-bases/${encodeURIComponent(kb)}/ask`, {
    method: 'POST',
    headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
    body: JSON.stringify({ question, ...(conversation ? { conversation } : {}) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ask answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as AskResponse;
}

/** Asks one question; `ask` below through HTTP, or an in-process assistant (the answer bench's old rule). */
export type Asker = (kb: string, question: string, conversation?: ConversationTurn[]) => Promise<AskResponse>;

export async function runQuestions(
  target: ApiTarget,
  kb: string,
  questions: Question[],
  withRecall = true,
  asker: Asker = (k, question, conversation) => ask(target, k, question, conversation),
): Promise<AnswerRun> {
  let answered = 0;
  let gold = 0;
  let recall = 0;
  let cited = 0;
  let citedFirst = 0;
  let previousCitedFirst = 0;
  let quotingQuestion = 0;
  const latencies: number[] = [];
  const chars: number[] = [];
  for (const q of questions) {
    const started = performance.now();
    const answer = await asker(kb, q.text, q.conversation);
    latencies.push(performance.now() - started);
    if (answer.answered) {
      answered++;
      chars.push(answer.answer.length);
    }
    if (answer.answered && q.goldAnswers && containsGold(answer.answer, q.goldAnswers)) gold++;
    if (answer.answered && /\?["'”’)\]]* \[\d+\]/.test(answer.answer)) quotingQuestion++;
    if (answer.citations.some((c) => c.externalId === q.goldItem)) cited++;
    if (answer.citations[0]?.externalId === q.goldItem) citedFirst++;
    if (q.previousItem !== undefined && answer.citations[0]?.externalId === q.previousItem) previousCitedFirst++;
    if (withRecall) {
      const found = await search(target, kb, { query: q.text, mode: 'hybrid', topK: 5 });
      if (found.results.some((r) => r.externalId === q.goldItem)) recall++;
    }
  }
  const n = questions.length;
  const rate = (x: number) => Math.round((x / n) * 1000) / 1000;
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    knowledgeBaseId: kb,
    questions: n,
    answered: rate(answered),
    goldInAnswer: questions.every((q) => q.goldAnswers) ? rate(gold) : null,
    recallAt5: withRecall ? rate(recall) : NaN,
    goldCited: rate(cited),
    goldCitedFirst: rate(citedFirst),
    quotingQuestion: rate(quotingQuestion),
    previousCitedFirst: questions.every((q) => q.previousItem !== undefined) ? rate(previousCitedFirst) : null,
    answerChars: { median: chars.length ? percentile(chars, 50) : 0 },
    latencyMs: { median: round(percentile(latencies, 50)), p95: round(percentile(latencies, 95)) },
  };
}
