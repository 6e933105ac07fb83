import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { usageQuerySchema, usageResponseSchema } from '../../contract/usage.ts';
import { BUCKET_MS, type UsageRepo, type UsageTotals } from '../../storage/usage-repo.ts';
import { ApiError } from '../api-error.ts';
import { allowedKnowledgeBases, assertKnowledgeBaseAccess } from '../api-key-auth.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../route-schemas.ts';

export type UsageRoutesOptions = { usage: UsageRepo };

/** Enough buckets for 90 days by the hour or five years by the day. */
const MAX_BUCKETS = 2_200;
const DEFAULT_SPAN = { hour: 48, day: 30 } as const;

export const usageRoutes: FastifyPluginAsyncZod<UsageRoutesOptions> = async (app, { usage }) => {
  app.get(
    '/usage',
    {
      config: { scope: 'usage:read' },
      schema: {
        tags: ['usage'],
        summary: 'Usage per key and per knowledge base, bucketed by hour or day (UTC)',
        description:
          'Requests per key and route, items pushed, jobs by outcome, chunks embedded, searches, questions and answer ' +
          'latency. A key restricted to knowledge bases sees only their usage.',
        security: apiKeySecurity,
        querystring: usageQuerySchema,
        response: { 200: usageResponseSchema, ...apiKeyErrorResponses },
      },
    },
    async (request) => {
      const { granularity, keyId, knowledgeBaseId } = request.query;
      const size = BUCKET_MS[granularity];
      // By default the last whole buckets up to and including the current one.
      const to = request.query.to ? Date.parse(request.query.to) : Math.ceil((Date.now() + 1) / size) * size;
      const from = request.query.from ? Date.parse(request.query.from) : to - DEFAULT_SPAN[granularity] * size;
      if (from >= to) throw new ApiError('invalid_query', '`from` must be before `to`.', [{ path: 'from', message: 'must be before to' }]);
      if ((to - from) / size > MAX_BUCKETS) {
        throw new ApiError('invalid_query', `At most ${MAX_BUCKETS} ${granularity} buckets per request.`, [
          { path: 'granularity', message: 'too many buckets for this range' },
        ]);
      }
      if (knowledgeBaseId !== undefined) assertKnowledgeBaseAccess(request, [knowledgeBaseId]);
      const allowed = allowedKnowledgeBases(request);
      const report = usage.query({ from, to, granularity, keyId, knowledgeBaseId, knowledgeBaseIds: allowed ?? undefined });
      const iso = (ms: number) => new Date(ms).toISOString();
      const first = report.series[0]?.start ?? from;
      const last = report.series.length ? report.series[report.series.length - 1]!.start + size : to;
      return {
        from: iso(first),
        to: iso(last),
        granularity,
        series: report.series.map(({ start, ...totals }) => ({ start: iso(start), ...(totals as UsageTotals) })),
        totals: report.totals,
        byKey: report.byKey,
        byKnowledgeBase: report.byKnowledgeBase,
        byRoute: report.byRoute,
      };
    },
  );
};
