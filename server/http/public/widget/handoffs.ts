import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorSchema } from '../../../../common/contract/errors.ts';
import { HANDOFFS_PER_SESSION, handoffCreatedSchema, handoffRequestSchema, visitorHandoffListSchema } from '../../../../common/contract/handoffs.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../edge/api-error.ts';
import { clientAddress } from '../../edge/client-address.ts';
import { isoTime } from '../../edge/iso-time.ts';
import { originErrors, preflight, refuse, VISITOR_BODY_LIMIT, visitorOf, visitorParams as params, visitorTags as tags } from '../../edge/visitor-route.ts';

export type VisitorHandoffRoutesOptions = Pick<Services, 'visitorLimits' | 'visitorSessions' | 'handoffs'> & { trustedProxies: readonly string[] };

/** `/v1/widget/{widgetId}/handoffs`: a visitor leaves a question for the shop, and reads the shop's replies. */
export const visitorHandoffRoutes: FastifyPluginAsyncZod<VisitorHandoffRoutesOptions> = async (app, { visitorLimits, visitorSessions, handoffs, trustedProxies }) => {
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

  preflight(app, 'handoffs', 'GET, POST');
};
