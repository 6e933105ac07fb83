import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dashboardFeedbackSchema } from '../../../../common/contract/conversations.ts';
import type { Services } from '../../../services.ts';
import { sessionOf } from '../../edge/admin-auth.ts';
import { ApiError } from '../../edge/api-error.ts';

const feedbackParamsSchema = z.strictObject({ conversationId: z.string().min(1).max(64), answerId: z.string().min(1).max(64) });

/** `PUT /conversations/{id}/answers/{answerId}/feedback`: thumbs up or down in the dashboard's chat, on an answer of the user's own conversation. */
export const conversationFeedbackRoutes: FastifyPluginAsyncZod<Pick<Services, 'dashboardConversations'>> = async (app, { dashboardConversations }) => {
  app.put(
    '/conversations/:conversationId/answers/:answerId/feedback',
    { config: { admin: 'member' }, schema: { params: feedbackParamsSchema, body: dashboardFeedbackSchema } },
    async (request, reply) => {
      const { conversationId, answerId } = request.params;
      if (!dashboardConversations.rate(sessionOf(request).user.id, conversationId, answerId, request.body.rating)) {
        throw new ApiError('not_found', `No answer "${answerId}" in a conversation of yours.`);
      }
      return reply.code(204).send();
    },
  );
};
