import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorSchema } from '../../../../common/contract/errors.ts';
import { visitorFeedbackSchema } from '../../../../common/contract/widget.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../edge/api-error.ts';
import { originErrors, preflight, refuse, VISITOR_BODY_LIMIT, visitorOf, visitorParams as params, visitorTags as tags } from '../../edge/visitor-route.ts';

/** `POST /v1/widget/{widgetId}/feedback`: thumbs up or down on an answer of the visitor's session. */
export const visitorFeedbackRoutes: FastifyPluginAsyncZod<Pick<Services, 'visitorLimits' | 'visitorConversations'>> = async (app, { visitorLimits, visitorConversations }) => {
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

  preflight(app, 'feedback', 'POST');
};
