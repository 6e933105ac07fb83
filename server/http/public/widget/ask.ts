import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorSchema } from '../../../../common/contract/errors.ts';
import { visitorAskRequestSchema } from '../../../../common/contract/widget.ts';
import type { WidgetRecord } from '../../../domain/widgets.ts';
import { type AskQuestion, type AskQuestionEvent, visitorCitations } from '../../../retrieval/answer/ask-question.ts';
import type { Services } from '../../../services.ts';
import { clientAddress } from '../../edge/client-address.ts';
import { openEventStream } from '../../edge/sse.ts';
import { originErrors, preflight, refuse, VISITOR_BODY_LIMIT, visitorOf, visitorParams as params, visitorTags as tags } from '../../edge/visitor-route.ts';

export type VisitorAskRoutesOptions = Pick<Services, 'askQuestion' | 'visitorLimits' | 'visitorSessions' | 'visitorConversations'> & { trustedProxies: readonly string[] };

/**
 * Serialises a visitor's answer as Server-Sent Events (contract: VisitorAskEvent). The asking is
 * the use case's (ask-question.ts), as for `POST /knowledge-bases/{id}/ask`: it chooses among the
 * widget's knowledge bases, swaps in the widget's fallback message when the content does not hold
 * the answer, and keeps the turn. What reaches the visitor is text only: answer deltas, citations
 * reduced to a number, a title and an http(s) link, and the product card; never passages, item
 * ids or scores.
 */
async function answerVisitor(
  request: FastifyRequest,
  reply: FastifyReply,
  askQuestion: AskQuestion,
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
      const suggested = response.suggestions ? { suggestions: response.suggestions } : {};
      const citations = visitorCitations(response.citations);
      stream.send('done', { answerId: outcome.recorded.answerId, answered: outcome.answered, answer: response.answer, citations, ...corrected, ...product, ...owner, ...suggested });
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

/**
 * `POST /v1/widget/{widgetId}/ask`: a visitor's question, within the widget's limits; the
 * session is stored at its first question.
 */
export const visitorAskRoutes: FastifyPluginAsyncZod<VisitorAskRoutesOptions> = async (app, { askQuestion, visitorLimits, visitorSessions, visitorConversations, trustedProxies }) => {
  app.post(
    '/v1/widget/:widgetId/ask',
    {
      bodyLimit: VISITOR_BODY_LIMIT,
      config: { visitorSession: true },
      schema: {
        tags,
        summary: "Ask a question; always answered as Server-Sent Events",
        description:
          'Needs a visitor session. Events, in order: `answer` (plain-text deltas), `citations` ({number, title, url}), ' +
          'then `done` ({answerId, answered, answer, citations}: the whole answer, which replaces the deltas), or `error`. ' +
          '`done` of an unanswered question may carry `suggestions` ([{id, question}], up to 3): the owner\'s curated questions ' +
          'close to it ("Did you mean …?"); asking one as it is gets its curated answer. ' +
          "`answered: false` means the knowledge base does not hold the answer; `answer` is then the widget's fallback message. " +
          'Limits per visitor, per address and per widget (429 `rate_limited` with Retry-After) and per day (429 `daily_limit_reached`).',
        params,
        body: visitorAskRequestSchema,
        response: { 200: z.string().describe('text/event-stream'), 400: errorSchema, 401: errorSchema, ...originErrors, 413: errorSchema, 415: errorSchema },
      },
    },
    async (request, reply) => {
      const { widget, origin, sessionId } = visitorOf(request);
      const address = clientAddress(request, trustedProxies);
      const refusal = visitorLimits.takeQuestion(widget, sessionId!, address);
      if (refusal) refuse(refusal);
      visitorConversations.startSession({ id: sessionId!, widgetId: widget.id, origin, ipHash: visitorSessions.hashAddress(address) });
      await answerVisitor(request, reply, askQuestion, { widget, sessionId: sessionId! }, request.body);
    },
  );

  preflight(app, 'ask', 'POST');
};
