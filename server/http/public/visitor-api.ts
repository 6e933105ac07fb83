import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorSchema } from '../../../common/contract/errors.ts';
import {
  publicWidgetConfigSchema,
  visitorAskRequestSchema,
  visitorFeedbackSchema,
  visitorSessionSchema,
  widgetIdSchema,
} from '../../../common/contract/widget.ts';
import { HANDOFFS_PER_SESSION, handoffCreatedSchema, handoffRequestSchema, visitorHandoffListSchema } from '../../../common/contract/handoffs.ts';
import type { Handoffs } from '../../domain/handoffs.ts';
import type { LimitRefusal, VisitorLimits } from '../../domain/visitor-limits.ts';
import { publicWidgetConfig } from '../../domain/widgets.ts';
import { ApiError } from '../edge/api-error.ts';
import { isoTime } from '../edge/iso-time.ts';
import { clientAddress } from '../edge/client-address.ts';
import { type OriginGateOptions, type VisitorContext, registerOriginGate } from '../edge/origin-gate.ts';
import { answerVisitor, type VisitorAnswerDeps } from './visitor-answer.ts';

export type VisitorApiOptions = OriginGateOptions & VisitorAnswerDeps & { visitorLimits: VisitorLimits; handoffs: Handoffs };

/** A question, ten earlier turns of up to 4,000 characters each, escaped as JSON: 256 KB is ample. */
export const VISITOR_BODY_LIMIT = 256 * 1024;

const params = z.strictObject({ widgetId: widgetIdSchema });
const tags = ['visitor'];
const originErrors = { 403: errorSchema, 404: errorSchema, 429: errorSchema } as const;

/** The gate let the request through, so it has its visitor context. */
const visitorOf = (request: FastifyRequest): VisitorContext => request.visitor!;

function refuse(refusal: LimitRefusal): never {
  const message =
    refusal.code === 'daily_limit_reached'
      ? 'This widget has answered as many questions as it may today; it answers again after midnight (UTC).'
      : `Too many requests (${refusal.limit} limit); retry in ${refusal.retryAfterSeconds}s.`;
  throw new ApiError(refusal.code, message, undefined, { 'retry-after': String(refusal.retryAfterSeconds) });
}

/**
 * `/v1/widget/{widgetId}/...`: all a visitor's browser may call (contract: common/contract/widget.ts).
 * Every route, preflights included, passes the origin gate first (origin-gate.ts).
 */
export const visitorApi: FastifyPluginAsyncZod<VisitorApiOptions> = async (app, options) => {
  const { visitorLimits, visitorSessions, visitorConversations, trustedProxies, handoffs } = options;
  registerOriginGate(app, options);

  app.get(
    '/v1/widget/:widgetId/config',
    {
      bodyLimit: VISITOR_BODY_LIMIT,
      schema: {
        tags,
        summary: "A widget's public settings: what it needs to draw itself",
        description: 'From an allowed origin only (CORS). A disabled widget answers 404 like an unknown one.',
        params,
        response: { 200: publicWidgetConfigSchema, ...originErrors },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-cache');
      return publicWidgetConfig(visitorOf(request).widget);
    },
  );

  app.post(
    '/v1/widget/:widgetId/sessions',
    {
      bodyLimit: VISITOR_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Start a visitor session: a two-hour token bound to this widget and origin',
        description:
          'No body. Send the token back as `Authorization: Bearer <token>`; no cookies are used. Nothing is stored until the ' +
          "session's first question. Limits per address and per widget (429 `rate_limited` with Retry-After).",
        params,
        response: { 201: visitorSessionSchema, ...originErrors },
      },
    },
    async (request, reply) => {
      const { widget, origin } = visitorOf(request);
      const address = clientAddress(request, trustedProxies);
      const refusal = visitorLimits.takeSession(widget, address);
      if (refusal) refuse(refusal);
      // Nothing is stored: the signed token is the session until its first question.
      const issued = visitorSessions.issue(widget.id, origin);
      return reply.code(201).send({ token: issued.token, expiresAt: isoTime(issued.expiresAt) });
    },
  );

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
      await answerVisitor(request, reply, options, { widget, sessionId: sessionId! }, request.body);
    },
  );

  app.post(
    '/v1/widget/:widgetId/feedback',
    {
      bodyLimit: VISITOR_BODY_LIMIT,
      config: { visitorSession: true },
      schema: {
        tags,
        summary: 'Thumbs up or down on an answer of this session',
        description: 'Needs a visitor session. Answers 204 with no body; a later rating of the same answer replaces the earlier one.',
        params,
        body: visitorFeedbackSchema,
        response: { 204: z.null().describe('Recorded'), 400: errorSchema, 401: errorSchema, ...originErrors },
      },
    },
    async (request, reply) => {
      const { sessionId } = visitorOf(request);
      const refusal = visitorLimits.takeFeedback(sessionId!);
      if (refusal) refuse(refusal);
      if (!visitorConversations.rate(sessionId!, request.body.answerId, request.body.rating)) {
        throw new ApiError('not_found', 'This session gave no answer with that id.');
      }
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/widget/:widgetId/handoffs',
    {
      bodyLimit: VISITOR_BODY_LIMIT,
      config: { visitorSession: true },
      schema: {
        tags,
        summary: 'Leave a question for the shop, with a way to be reached',
        description:
          'Needs a visitor session. An e-mail address or a phone number (at least one) and `consent: true` are required (else 400 ' +
          '`invalid_body`). The shop replies in its dashboard; the visitor reads the reply with `GET .../handoffs`. Limited like ' +
          `questions, in buckets of their own (429 \`rate_limited\` with Retry-After), and at most ${HANDOFFS_PER_SESSION} per session (429 without Retry-After).`,
        params,
        body: handoffRequestSchema,
        response: { 201: handoffCreatedSchema, 400: errorSchema, 401: errorSchema, ...originErrors, 413: errorSchema, 415: errorSchema },
      },
    },
    async (request, reply) => {
      const { widget, origin, sessionId } = visitorOf(request);
      const address = clientAddress(request, trustedProxies);
      const refusal = visitorLimits.takeHandoff(widget, sessionId!, address);
      if (refusal) refuse(refusal);
      const created = handoffs.create({ widget, sessionId: sessionId!, origin, ipHash: visitorSessions.hashAddress(address), request: request.body });
      if (!created) {
        throw new ApiError('rate_limited', `This conversation has already left ${HANDOFFS_PER_SESSION} questions for the shop; the shop will reply to those.`);
      }
      // The owner's log says a handoff came, never who left it or how to reach them.
      request.log.info({ handoffId: created.id, widgetId: widget.id }, 'handoff: a visitor left a question for the shop');
      return reply.code(201).send({ id: created.id, status: 'open' as const });
    },
  );

  app.get(
    '/v1/widget/:widgetId/handoffs',
    {
      bodyLimit: VISITOR_BODY_LIMIT,
      config: { visitorSession: 'or-expired' },
      schema: {
        tags,
        summary: "This session's questions left for the shop, with the shop's replies",
        description:
          "Needs the visitor session that left them; its token is taken after its expiry too, so a visitor returning later reads the reply. " +
          "Only that session's handoffs of this widget, oldest first; `reply` once the shop answered. 429 `rate_limited` past 30 reads a minute.",
        params,
        response: { 200: visitorHandoffListSchema, 401: errorSchema, ...originErrors },
      },
    },
    async (request, reply) => {
      const { widget, sessionId } = visitorOf(request);
      const refusal = visitorLimits.takeHandoffRead(sessionId!);
      if (refusal) refuse(refusal);
      reply.header('cache-control', 'no-store');
      return {
        handoffs: handoffs.ofSession(sessionId!, widget.id).map((h) => ({
          id: h.id,
          question: h.question,
          status: h.status,
          ...(h.reply ? { reply: { text: h.reply.text, at: isoTime(h.reply.at) } } : {}),
        })),
      };
    },
  );

  // CORS preflights: answered (204) only for an allowed origin, which the gate has checked.
  for (const [path, methods] of [['config', 'GET'], ['sessions', 'POST'], ['ask', 'POST'], ['feedback', 'POST'], ['handoffs', 'GET, POST']] as const) {
    app.options(`/v1/widget/:widgetId/${path}`, { schema: { hide: true } }, async (_request, reply) => {
      reply.raw.setHeader('access-control-allow-methods', methods);
      return reply.code(204).send();
    });
  }
};
