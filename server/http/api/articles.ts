import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { articleListQuerySchema, articleListSchema, articleParamsSchema, articleSchema } from '../../../common/contract/articles.ts';
import { errorSchema } from '../../../common/contract/errors.ts';
import { decodeCursor, paginate } from '../../domain/cursor.ts';
import type { ArticleRecord } from '../../domain/item-record.ts';
import type { Services } from '../../services.ts';
import { ApiError } from '../edge/api-error.ts';
import { allowedKnowledgeBases, assertKnowledgeBaseAccess } from '../edge/api-key-auth.ts';
import { isoTime } from '../edge/iso-time.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../edge/route-schemas.ts';

function summary(row: ArticleRecord) {
  return {
    id: `art_${row.id}`,
    knowledgeBaseId: row.knowledgeBaseId,
    integrationId: row.integrationId,
    externalId: row.externalId,
    title: row.title,
    url: row.url,
    createdAt: isoTime(row.createdAt),
    updatedAt: isoTime(row.updatedAt),
  };
}

/** Published articles: items of sourceType ARTICLE once indexed (scope `articles:read`). */
export const articleRoutes: FastifyPluginAsyncZod<Pick<Services, 'articles'>> = async (app, { articles }) => {
  app.get(
    '/articles',
    {
      config: { scope: 'articles:read' },
      schema: {
        tags: ['articles'],
        summary: 'List published articles, newest first',
        security: apiKeySecurity,
        querystring: articleListQuerySchema,
        response: { 200: articleListSchema, ...apiKeyErrorResponses },
      },
    },
    async (request) => {
      const { knowledgeBaseId, limit, cursor } = request.query;
      if (knowledgeBaseId !== undefined) assertKnowledgeBaseAccess(request, [knowledgeBaseId]);
      const scope = knowledgeBaseId !== undefined ? [knowledgeBaseId] : allowedKnowledgeBases(request);
      const beforeId = cursor === undefined ? null : decodeCursor(cursor);
      const page = paginate(articles.list(scope, beforeId, limit + 1), limit);
      return { data: page.rows.map(summary), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/articles/:id',
    {
      config: { scope: 'articles:read' },
      schema: {
        tags: ['articles'],
        summary: 'Read a published article',
        security: apiKeySecurity,
        params: articleParamsSchema,
        response: { 200: articleSchema, ...apiKeyErrorResponses, 404: errorSchema },
      },
    },
    async (request) => {
      const row = articles.get(Number(request.params.id.slice('art_'.length)));
      const allowed = allowedKnowledgeBases(request);
      // An article of a knowledge base this key may not see is reported as absent, not as forbidden.
      if (!row || (allowed && !allowed.includes(row.knowledgeBaseId))) {
        throw new ApiError('not_found', `No published article "${request.params.id}".`);
      }
      return { ...summary(row), content: row.content };
    },
  );
};
