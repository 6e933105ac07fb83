import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { usageQuerySchema, usageResponseSchema } from '../../../common/contract/usage.ts';
import type { UsageRepo } from '../../storage/usage-repo.ts';
import type { VisitorConversations } from '../../domain/visitor-conversations.ts';
import type { VisitorAnalyticsRepo } from '../../storage/visitor-analytics-repo.ts';
import { allowedKnowledgeBases, assertKnowledgeBaseAccess } from '../edge/api-key-auth.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../edge/route-schemas.ts';
import { isoTime } from '../edge/iso-time.ts';
import { isoSeries, usageRange } from '../edge/usage-range.ts';
import { NO_VISITORS, visitorUsage } from '../visitor-usage.ts';

export type UsageRoutesOptions = { usage: UsageRepo; visitors: VisitorConversations; visitorAnalytics: VisitorAnalyticsRepo };

export const usageRoutes: FastifyPluginAsyncZod<UsageRoutesOptions> = async (app, { usage, visitors, visitorAnalytics }) => {
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
      const report = usage.query({ from, to, granularity, keyId, knowledgeBaseId, knowledgeBaseIds: allowed ?? undefined });
      const first = report.series[0]?.start ?? from;
      const last = report.series.length ? report.series[report.series.length - 1]!.start + size : to;
      return {
        from: isoTime(first),
        to: isoTime(last),
        granularity,
        series: isoSeries(report.series),
        totals: report.totals,
        byKey: report.byKey,
        byKnowledgeBase: report.byKnowledgeBase,
        byRoute: report.byRoute,
        visitors:
          keyId !== undefined && keyId !== ''
            ? NO_VISITORS
            : visitorUsage({ visitors, visitorAnalytics }, { from: first, to: last, size, widgetId, knowledgeBaseId, knowledgeBaseIds: allowed ?? undefined }),
      };
    },
  );
};
