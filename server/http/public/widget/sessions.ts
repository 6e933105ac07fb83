import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { visitorSessionSchema } from '../../../../common/contract/widget.ts';
import type { Services } from '../../../services.ts';
import { clientAddress } from '../../edge/client-address.ts';
import { isoTime } from '../../edge/iso-time.ts';
import { originErrors, preflight, refuse, VISITOR_BODY_LIMIT, visitorOf, visitorParams as params, visitorTags as tags } from '../../edge/visitor-route.ts';

export type VisitorSessionRoutesOptions = Pick<Services, 'visitorLimits' | 'visitorSessions'> & { trustedProxies: readonly string[] };

/** `POST /v1/widget/{widgetId}/sessions`: a visitor session, a signed token and nothing stored. */
export const visitorSessionRoutes: FastifyPluginAsyncZod<VisitorSessionRoutesOptions> = async (app, { visitorLimits, visitorSessions, trustedProxies }) => {
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

  preflight(app, 'sessions', 'POST');
};
