import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { knowledgeBaseParamsSchema } from '../../../../common/contract/knowledge.ts';
import type { Services } from '../../../services.ts';

/** `GET /knowledge-bases/{id}/integrations`: the integrations that pushed items into a knowledge base, with their counts. */
export const integrationRoutes: FastifyPluginAsyncZod<Pick<Services, 'reader'>> = async (app, { reader }) => {
  /** What the items filter offers, so nobody has to type an integration's exact name. */
  app.get(
    '/knowledge-bases/:knowledgeBaseId/integrations',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema } },
    async (request) => ({
      data: reader.integrations(request.params.knowledgeBaseId).map((row) => ({ id: row.integrationId, itemCount: row.itemCount })),
    }),
  );
};
