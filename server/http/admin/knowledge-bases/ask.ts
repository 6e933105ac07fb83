import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { dashboardAskRequestSchema } from '../../../../common/contract/conversations.ts';
import { knowledgeBaseParamsSchema } from '../../../../common/contract/knowledge.ts';
import type { Services } from '../../../services.ts';
import { sessionOf } from '../../edge/admin-auth.ts';
import { answerQuestion } from '../../edge/ask-stream.ts';

/**
 * The dashboard's chat: the same asking as `POST /knowledge-bases/{id}/ask`, with the session
 * instead of an API key, keeping each answer in the user's dashboard conversation (listed on the
 * Conversations screen).
 */
export const askAdminRoutes: FastifyPluginAsyncZod<Pick<Services, 'askQuestion'>> = async (app, { askQuestion }) => {
  app.post(
    '/knowledge-bases/:knowledgeBaseId/ask',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema, body: dashboardAskRequestSchema } },
    async (request, reply) => {
      const { knowledgeBaseId } = request.params;
      const { conversationId, ...question } = request.body;
      const { user } = sessionOf(request);
      const asker = { kind: 'dashboard' as const, user: { id: user.id, name: user.username }, conversationId: conversationId ?? null };
      return answerQuestion(request, reply, askQuestion, knowledgeBaseId, question, asker, ({ recorded }) => recorded);
    },
  );
};
