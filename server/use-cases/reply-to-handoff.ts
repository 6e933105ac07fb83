import type { Handoffs } from '../domain/handoffs.ts';
import type { CuratedAnswers } from '../retrieval/curated/curated-answers.ts';

export type ReplyToHandoffDeps = { handoffs: Handoffs; curatedAnswers: CuratedAnswers };

/**
 * The shop's reply to a visitor's handoff, kept for the visitor to read; with `saveAsAnswer` also
 * the curated answer to the handoff's question, so the assistant gives it to every visitor who asks
 * it (the caller checks that the user may). Null when the handoff is gone (deleted with its conversation).
 */
export function replyToHandoff({ handoffs, curatedAnswers }: ReplyToHandoffDeps, handoffId: string, reply: { text: string; by: string; saveAsAnswer: boolean }) {
  const current = handoffs.get(handoffId);
  if (!current) return null;
  const replied = handoffs.reply(handoffId, reply.text, reply.by);
  if (!replied) return null;
  const curated = reply.saveAsAnswer ? curatedAnswers.create(current.knowledgeBaseId, { question: current.question, answer: reply.text, alsoAsked: [] }) : null;
  return { handoff: replied, curatedAnswerId: curated?.id ?? null };
}
