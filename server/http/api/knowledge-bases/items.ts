import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorSchema } from '../../../../common/contract/errors.ts';
import { itemDetailSchema, itemListQuerySchema, itemListSchema, itemParamsSchema, knowledgeBaseParamsSchema } from '../../../../common/contract/knowledge.ts';
import { decodeCursor, paginate } from '../../../domain/cursor.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../edge/api-error.ts';
import { assertKnowledgeBaseAccess } from '../../edge/api-key-auth.ts';
import { indexedItemView, itemSummaryView } from '../../edge/item-view.ts';
import { toJobView } from '../../edge/job-view.ts';
import { assertKnowledgeBaseExists } from '../../edge/known-knowledge-base.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../../edge/route-schemas.ts';

/** `/knowledge-bases/{id}/items`: a knowledge base's indexed items, and one with its chunks and latest job. */
export const knowledgeBaseItemRoutes: FastifyPluginAsyncZod<Pick<Services, 'reader' | 'jobs'>> = async (app, { reader, jobs }) => {
  app.get(
    '/knowledge-bases/:knowledgeBaseId/items',
    {
      config: { scope: 'iq:read' },
      schema: {
        tags: ['knowledge'],
        summary: 'List indexed items, newest first',
        security: apiKeySecurity,
        params: knowledgeBaseParamsSchema,
        querystring: itemListQuerySchema,
        response: { 200: itemListSchema, ...apiKeyErrorResponses, 404: errorSchema },
      },
    },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      assertKnowledgeBaseAccess(request, [knowledgeBaseId]);
      assertKnowledgeBaseExists(reader, knowledgeBaseId);
      const { limit, cursor, ...filter } = request.query;
      const beforeId = cursor === undefined ? null : decodeCursor(cursor);
      const page = paginate(reader.list(knowledgeBaseId, filter, limit + 1, beforeId), limit);
      return { data: page.rows.map((row) => ({ ...itemSummaryView(row), chunkCount: row.chunkCount })), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/knowledge-bases/:knowledgeBaseId/items/:integrationId/:externalId',
    {
      config: { scope: 'iq:read' },
      schema: {
        tags: ['knowledge'],
        summary: 'Read an item with its chunks and latest job',
        security: apiKeySecurity,
        params: itemParamsSchema,
        response: { 200: itemDetailSchema, ...apiKeyErrorResponses, 404: errorSchema },
      },
    },
    async (request) => {
      assertKnowledgeBaseAccess(request, [request.params.knowledgeBaseId]);
      const row = reader.get(request.params);
      if (!row) {
        const { knowledgeBaseId, integrationId, externalId } = request.params;
        assertKnowledgeBaseExists(reader, knowledgeBaseId);
        throw new ApiError('not_found', `No indexed item "${externalId}" from "${integrationId}" in "${knowledgeBaseId}".`);
      }
      const latest = jobs.latestForItem(request.params);
      return { ...indexedItemView(row, reader), latestJob: latest ? toJobView(latest) : null };
    },
  );
};
