import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorSchema } from '../../../common/contract/errors.ts';
import {
  itemDetailSchema,
  itemListQuerySchema,
  itemListSchema,
  itemParamsSchema,
  knowledgeBaseListSchema,
  knowledgeBaseParamsSchema,
  searchRequestSchema,
  searchResponseSchema,
} from '../../../common/contract/knowledge.ts';
import { decodeCursor, paginate } from '../../domain/cursor.ts';
import type { SearchService } from '../../retrieval/search.ts';
import type { ItemReadRepo } from '../../storage/item-read-repo.ts';
import type { JobRepo } from '../../storage/jobs/job-repo.ts';
import { ApiError } from '../edge/api-error.ts';
import { isoTime } from '../edge/iso-time.ts';
import { indexedItemView, itemSummaryView } from '../edge/item-view.ts';
import { toJobView } from '../edge/job-view.ts';
import { allowedKnowledgeBases, assertKnowledgeBaseAccess } from '../edge/api-key-auth.ts';
import { assertKnowledgeBaseExists } from '../edge/known-knowledge-base.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../edge/route-schemas.ts';

export type KnowledgeRoutesOptions = { reader: ItemReadRepo; jobs: JobRepo; search: SearchService };

export const knowledgeRoutes: FastifyPluginAsyncZod<KnowledgeRoutesOptions> = async (app, { reader, jobs, search }) => {
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
          itemCount: kb.item_count,
          chunkCount: kb.chunk_count,
          pendingJobs: kb.pending_jobs,
          createdAt: isoTime(kb.created_at),
        }));
      return { data };
    },
  );

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
      return { data: page.rows.map((row) => ({ ...itemSummaryView(row), chunkCount: row.chunk_count })), nextCursor: page.nextCursor };
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
