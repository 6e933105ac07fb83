import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AskEvent, AskRequest, Citation } from '../../../common/contract/ask.ts';
import type { VisitorCitation, visitorAskRequestSchema } from '../../../common/contract/widget.ts';
import type { z } from 'zod';
import type { VisitorConversations } from '../../domain/visitor-conversations.ts';
import type { WidgetRecord } from '../../domain/widgets.ts';
import type { Assistant } from '../../retrieval/answer/assistant.ts';
import { mayBeNotFoundReply } from '../../retrieval/answer/prompt.ts';
import { openEventStream } from '../sse.ts';

export type VisitorAnswerDeps = { assistant: Assistant; visitorConversations: VisitorConversations };

/**
 * Answers a visitor's question as Server-Sent Events (contract: VisitorAskEvent), with the same
 * assistant and the same code path as `POST /knowledge-bases/{id}/ask` with `stream: true`, then
 * stores the turn. What reaches the visitor is text only: answer deltas, and citations reduced to
 * a number, a title and an http(s) link; never passages, item ids or scores.
 *
 * When the knowledge base does not hold the answer, the visitor reads the widget's fallback
 * message instead of the assistant's own wording: the start of an answer is held back while it
 * could still be that wording (a word or two at most for any other answer).
 */
export async function answerVisitor(
  request: FastifyRequest,
  reply: FastifyReply,
  { assistant, visitorConversations }: VisitorAnswerDeps,
  visitor: { widget: WidgetRecord; sessionId: string },
  body: z.output<typeof visitorAskRequestSchema>,
): Promise<void> {
  const started = performance.now();
  const { widget, sessionId } = visitor;
  const stream = openEventStream(request, reply);
  let held = '';
  let flowing = false;
  const onEvent = (event: AskEvent) => {
    if (event.type === 'answer') {
      if (flowing) return stream.send('answer', { text: event.text });
      held += event.text;
      if (mayBeNotFoundReply(held)) return;
      flowing = true;
      stream.send('answer', { text: held });
    }
    // `fallback` (the language model failed midway) is not passed on: `done` carries the whole answer that stands.
  };
  try {
    // The earlier turns are the stored ones: the browser's `conversation` is not believed.
    const question: AskRequest = { question: body.question, conversation: visitorConversations.earlierTurns(sessionId) };
    const knowledgeBaseId = await bestSupported(assistant, widget.knowledgeBaseIds, question, stream.signal);
    const result = await assistant.ask(knowledgeBaseId, question, {
      signal: stream.signal,
      onEvent,
      quoteBudget: true,
      onModelFailure: (reason) => request.log.warn({ requestId: request.id, reason }, 'the language model could not be used; answered extractively'),
    });
    const answer = result.answered ? result.answer : widget.fallbackMessage;
    if (!flowing) stream.send('answer', { text: answer });
    const citations = result.answered ? visitorCitations(result.citations) : [];
    stream.send('citations', { citations });
    const turn = visitorConversations.recordTurn({
      sessionId,
      widgetId: widget.id,
      knowledgeBaseId,
      question: body.question,
      answer,
      answered: result.answered,
      citations,
      latencyMs: Math.round((performance.now() - started) * 10) / 10,
    });
    // "Showing results for …" only beside an answer: a fallback message was not read from anything.
    const corrected = result.answered && result.correctedQuery ? { correctedQuery: result.correctedQuery } : {};
    stream.send('done', { answerId: turn.id, answered: result.answered, answer, citations, ...corrected, ...(result.source ? { source: result.source } : {}) });
  } catch (error) {
    if (!stream.signal.aborted) {
      request.log.error({ err: error, requestId: request.id }, 'visitor answer failed');
      stream.send('error', { code: 'internal_error', message: 'The answer could not be completed.' });
    }
  } finally {
    stream.end();
  }
}

/**
 * Of a widget's knowledge bases, the one to answer from: each is searched and scored (the
 * assistant's own analysis, without composing an answer), and the one whose passages answer the
 * question, with the most support, wins. Only the winner is asked, so a configured language model
 * is called once. A widget with one knowledge base skips this.
 */
async function bestSupported(assistant: Assistant, knowledgeBaseIds: string[], question: AskRequest, signal: AbortSignal): Promise<string> {
  if (knowledgeBaseIds.length === 1) return knowledgeBaseIds[0]!;
  let best = { id: knowledgeBaseIds[0]!, answers: false, score: -Infinity };
  for (const id of knowledgeBaseIds) {
    const analysis = await assistant.analyze(id, question, signal);
    const candidate = { id, answers: assistant.answers(analysis), score: analysis.support.score };
    if (Number(candidate.answers) > Number(best.answers) || (candidate.answers === best.answers && candidate.score > best.score)) best = candidate;
  }
  return best.id;
}

/**
 * What a visitor may see of a citation: its number, its title, its link when that is http(s), and
 * the page or section of an uploaded file's passage.
 */
export function visitorCitations(citations: Citation[]): VisitorCitation[] {
  return citations.map((c) => ({
    number: c.number,
    title: c.title,
    url: webLink(c.url),
    ...(c.page !== undefined ? { page: c.page } : {}),
    ...(c.section !== undefined ? { section: c.section } : {}),
  }));
}

function webLink(url: string | null): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}
