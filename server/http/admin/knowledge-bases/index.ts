import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Services } from '../../../services.ts';
import { isoTime } from '../../edge/iso-time.ts';

/** `GET /knowledge-bases`: every knowledge base with its counts, for the dashboard. */
export const knowledgeBaseAdminRoutes: FastifyPluginAsyncZod<Pick<Services, 'reader'>> = async (app, { reader }) => {
  app.get('/knowledge-bases', { config: { admin: 'member' } }, async () => ({
    data: reader.knowledgeBases().map((kb) => ({
      id: kb.id,
      itemCount: kb.itemCount,
      chunkCount: kb.chunkCount,
      pendingJobs: kb.pendingJobs,
      createdAt: isoTime(kb.createdAt),
    })),
  }));
};
