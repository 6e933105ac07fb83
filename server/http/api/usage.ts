import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { usageQuerySchema, usageResponseSchema } from '../../../common/contract/usage.ts';
import type { Services } from '../../services.ts';
import { apiUsageReport } from '../../use-cases/usage-report.ts';
import { allowedKnowledgeBases, assertKnowledgeBaseAccess } from '../edge/api-key-auth.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../edge/route-schemas.ts';
import { usageRange } from '../edge/usage-range.ts';
import { usageReportView } from '../edge/usage-view.ts';

/** `GET /usage` (scope `usage:read`): the report is the use case's (server/use-cases/usage-report.ts). */
export const usageRoutes: FastifyPluginAsyncZod<Pick<Services, 'usage' | 'visitorConversations' | 'visitorAnalytics'>> = async (app, deps) => {
  app.get(
    '/usage',
    {
      config: { scope: 'usage:read' },
      schema: {
        tags: ['usage'],
        summary: 'Usage per key and per knowledge base, bucketed by hour or day (UTC)',
        description:
          'Requests per key and route, items pushed, jobs by outcome, chunks embedded, searches, questions and answer ' +
          "latency, and the visitor assistant's questions, answers and feedback per widget, with its sessions, answered share, " +
          'answer times, top questions (grouped by meaning) and top cited items per bucket and knowledge base. A key restricted to ' +
          'knowledge bases sees only their usage.',
        security: apiKeySecurity,
        querystring: usageQuerySchema,
        response: { 200: usageResponseSchema, ...apiKeyErrorResponses },
      },
    },
    async (request) => {
      const { granularity, keyId, knowledgeBaseId, widgetId } = request.query;
      const { from, to, size } = usageRange(request.query);
      if (knowledgeBaseId !== undefined) assertKnowledgeBaseAccess(request, [knowledgeBaseId]);
      const allowed = allowedKnowledgeBases(request);
      const report = apiUsageReport(deps, { from, to, size, granularity, keyId, knowledgeBaseId, widgetId, knowledgeBaseIds: allowed ?? undefined });
      return usageReportView(report, granularity);
    },
  );
};
