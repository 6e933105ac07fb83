import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { knowledgeBaseListSchema } from '../../../../common/contract/knowledge.ts';
import type { Services } from '../../../services.ts';
import { allowedKnowledgeBases } from '../../edge/api-key-auth.ts';
import { isoTime } from '../../edge/iso-time.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../../edge/route-schemas.ts';

/** `GET /knowledge-bases`: the knowledge bases a key may see, with their counts. */
export const knowledgeBaseRoutes: FastifyPluginAsyncZod<Pick<Services, 'reader'>> = async (app, { reader }) => {
  app.get(
    '/knowledge-bases',
    {
      config: { scope: 'iq:read' },
      schema: {
        tags: ['knowledge'],
        summary: 'List knowledge bases with their counts',
        security: apiKeySecurity,
        response: { 200: knowledgeBaseListSchema, ...apiKeyErrorResponses },
      },
    },
    async (request) => {
      const allowed = allowedKnowledgeBases(request);
      const data = reader
        .knowledgeBases()
        .filter((kb) => !allowed || allowed.includes(kb.id))
        .map((kb) => ({
          id: kb.id,
          itemCount: kb.itemCount,
          chunkCount: kb.chunkCount,
          pendingJobs: kb.pendingJobs,
          createdAt: isoTime(kb.createdAt),
        }));
      return { data };
    },
  );
};
