import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { visitorAskRequestSchema } from '../../../common/contract/widget.ts';
import type { WidgetRecord } from '../../domain/widgets.ts';
import { type AskQuestion, type AskQuestionEvent, visitorCitations } from '../../retrieval/answer/ask-question.ts';
import { openEventStream } from '../edge/sse.ts';

export type VisitorAnswerDeps = { askQuestion: AskQuestion };

/**
 * Serialises a visitor's answer as Server-Sent Events (contract: VisitorAskEvent). The asking is
 * the use case's (ask-question.ts), as for `POST /knowledge-bases/{id}/ask`: it chooses among the
 * widget's knowledge bases, swaps in the widget's fallback message when the content does not hold
 * the answer, and keeps the turn. What reaches the visitor is text only: answer deltas, citations
 * reduced to a number, a title and an http(s) link, and the product card; never passages, item
 * ids or scores.
 */
export async function answerVisitor(
  request: FastifyRequest,
  reply: FastifyReply,
  { askQuestion }: VisitorAnswerDeps,
  visitor: { widget: WidgetRecord; sessionId: string },
  body: z.output<typeof visitorAskRequestSchema>,
): Promise<void> {
  const { widget, sessionId } = visitor;
  const stream = openEventStream(request, reply);
  const onEvent = (event: AskQuestionEvent) => {
    if (event.type === 'answer') stream.send('answer', { text: event.text });
    else if (event.type === 'citations') stream.send('citations', { citations: visitorCitations(event.citations) });
    else if (event.type === 'done') {
      const { outcome } = event;
      const { response } = outcome;
      // "Showing results for …" only beside an answer: a fallback message was not read from anything.
      const corrected = outcome.answered && response.correctedQuery ? { correctedQuery: response.correctedQuery } : {};
      const product = outcome.product ? { product: outcome.product } : {};
      const owner = response.source ? { source: response.source } : {};
      const citations = visitorCitations(response.citations);
      stream.send('done', { answerId: outcome.recorded.answerId, answered: outcome.answered, answer: response.answer, citations, ...corrected, ...product, ...owner });
    }
    // `fallback` (the language model failed midway) is not passed on: `done` carries the whole answer that stands.
  };
  try {
    await askQuestion.ask({
      knowledgeBaseIds: widget.knowledgeBaseIds,
      request: { question: body.question, conversation: body.conversation, ...(body.context ? { context: body.context } : {}) },
      asker: { kind: 'visitor', widgetId: widget.id, sessionId, fallbackMessage: widget.fallbackMessage, sendPageUrl: widget.sendPageUrl },
      signal: stream.signal,
      onEvent,
      onRecordFailure: (error) => request.log.error({ err: error, requestId: request.id }, 'the answer could not be kept'),
      onModelFailure: (reason) => request.log.warn({ requestId: request.id, reason }, 'the language model could not be used; answered extractively'),
    });
  } catch (error) {
    if (!stream.signal.aborted) {
      request.log.error({ err: error, requestId: request.id }, 'visitor answer failed');
      stream.send('error', { code: 'internal_error', message: 'The answer could not be completed.' });
    }
  } finally {
    stream.end();
  }
}
