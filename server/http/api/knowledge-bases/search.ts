import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorSchema } from '../../../../common/contract/errors.ts';
import { knowledgeBaseParamsSchema, searchRequestSchema, searchResponseSchema } from '../../../../common/contract/knowledge.ts';
import type { Services } from '../../../services.ts';
import { assertKnowledgeBaseAccess } from '../../edge/api-key-auth.ts';
import { itemSummaryView } from '../../edge/item-view.ts';
import { assertKnowledgeBaseExists } from '../../edge/known-knowledge-base.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../../edge/route-schemas.ts';

/** `POST /knowledge-bases/{id}/search`: keyword, semantic or hybrid search (server/retrieval/search.ts). */
export const knowledgeBaseSearchRoutes: FastifyPluginAsyncZod<Pick<Services, 'reader' | 'search'>> = async (app, { reader, search }) => {
  app.post(
    '/knowledge-bases/:knowledgeBaseId/search',
    {
      config: { scope: 'iq:read' },
      schema: {
        tags: ['knowledge'],
        summary: 'Search a knowledge base by keywords, meaning, or both',
        description: 'Results are items with their best passages. Hybrid fuses keyword (BM25) and semantic rankings.',
        security: apiKeySecurity,
        params: knowledgeBaseParamsSchema,
        body: searchRequestSchema,
        response: { 200: searchResponseSchema, ...apiKeyErrorResponses, 404: errorSchema, 413: errorSchema, 415: errorSchema },
      },
    },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      assertKnowledgeBaseAccess(request, [knowledgeBaseId]);
      assertKnowledgeBaseExists(reader, knowledgeBaseId);
      const started = performance.now();
      const body = request.body;
      const outcome = await search.search(knowledgeBaseId, body.query, {
        mode: body.mode,
        topK: body.topK,
        sourceTypes: body.sourceTypes ?? null,
        passages: body.passages,
      });
      return {
        query: body.query,
        mode: outcome.mode,
        results: outcome.hits.map((hit) => ({ ...itemSummaryView(hit.item), score: hit.score, passages: hit.passages })),
        tookMs: Math.round((performance.now() - started) * 10) / 10,
        // Only when a word was read as another, so every other response stays as it was.
        ...(outcome.correctedQuery === null ? {} : { correctedQuery: outcome.correctedQuery }),
      };
    },
  );
};
