import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { usageQuerySchema } from '../../../common/contract/usage.ts';
import type { Services } from '../../services.ts';
import { dashboardUsageReport } from '../../use-cases/usage-report.ts';
import { usageRange } from '../edge/usage-range.ts';
import { usageReportView } from '../edge/usage-view.ts';

/** `GET /usage`: the same report as the API's `GET /usage`, for every key and knowledge base, with the visitors' (whatever the key filter). */
export const usageAdminRoutes: FastifyPluginAsyncZod<Pick<Services, 'usage' | 'visitorConversations' | 'visitorAnalytics'>> = async (app, deps) => {
  app.get('/usage', { config: { admin: 'member' }, schema: { querystring: usageQuerySchema } }, async (request) => {
    const { granularity, keyId, knowledgeBaseId, widgetId } = request.query;
    const { from, to, size } = usageRange(request.query);
    const report = dashboardUsageReport(deps, { from, to, size, granularity, keyId, knowledgeBaseId, widgetId });
    const { byRoute: _byRoute, ...view } = usageReportView(report, granularity);
    return view;
  });
};
