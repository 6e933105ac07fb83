import type { VisitorConversations } from '../domain/visitor-conversations.ts';
import type { Granularity, UsageRepo } from '../storage/usage-repo.ts';
import type { VisitorAnalyticsRepo } from '../storage/visitor-analytics-repo.ts';

export type VisitorUsageDeps = { visitorConversations: VisitorConversations; visitorAnalytics: VisitorAnalyticsRepo };
export type UsageReportDeps = VisitorUsageDeps & { usage: UsageRepo };

/** Top questions and cited items listed. */
const TOP = 10;

type VisitorUsageQuery = { from: number; to: number; size: number; widgetId?: string | undefined; knowledgeBaseId?: string | undefined; knowledgeBaseIds?: string[] | undefined };

/** The `visitors` part of a usage report (times in milliseconds), shared by `GET /usage` and the dashboard's Usage screen. */
export function visitorUsage({ visitorConversations, visitorAnalytics }: VisitorUsageDeps, query: VisitorUsageQuery) {
  const { from, to, widgetId, knowledgeBaseId, knowledgeBaseIds } = query;
  const counts = visitorConversations.usage({ from, to, widgetId, knowledgeBaseId, knowledgeBaseIds });
  const analytics = visitorAnalytics.analytics({ ...query, top: TOP });
  return {
    ...counts,
    summary: analytics.summary,
    series: analytics.series,
    byKnowledgeBase: analytics.byKnowledgeBase,
    topQuestions: analytics.topQuestions,
    topCitedItems: analytics.topCitedItems,
  };
}

export type VisitorUsage = ReturnType<typeof visitorUsage>;

/** Visitors use no API key: what a query for one key's usage finds of them. */
export const NO_VISITORS: VisitorUsage = {
  totals: { questions: 0, answered: 0, feedbackUp: 0, feedbackDown: 0 },
  byWidget: [],
  summary: { questions: 0, answered: 0, answeredShare: null, feedbackUp: 0, feedbackDown: 0, sessions: 0, answerTimeMs: { median: null, p95: null } },
  series: [],
  byKnowledgeBase: [],
  topQuestions: [],
  topCitedItems: [],
};

export type UsageQuery = {
  from: number;
  to: number;
  size: number;
  granularity: Granularity;
  keyId?: string | undefined;
  knowledgeBaseId?: string | undefined;
  widgetId?: string | undefined;
};

/**
 * `GET /usage`: the key's view, limited to the knowledge bases it may see (`knowledgeBaseIds`,
 * undefined for all), from the first bucket that holds data to the end of the last. One key's
 * usage holds no visitors.
 */
export function apiUsageReport(deps: UsageReportDeps, query: UsageQuery & { knowledgeBaseIds: string[] | undefined }) {
  const { from, to, size, granularity, keyId, knowledgeBaseId, widgetId, knowledgeBaseIds } = query;
  const report = deps.usage.query({ from, to, granularity, keyId, knowledgeBaseId, knowledgeBaseIds });
  const first = report.series[0]?.start ?? from;
  const last = report.series.length ? report.series[report.series.length - 1]!.start + size : to;
  const visitors = keyId !== undefined && keyId !== '' ? NO_VISITORS : visitorUsage(deps, { from: first, to: last, size, widgetId, knowledgeBaseId, knowledgeBaseIds });
  return { ...report, from: first, to: last, visitors };
}

/** The dashboard's Usage screen: the range asked, for every key and knowledge base, with the visitors' whatever the key filter. */
export function dashboardUsageReport(deps: UsageReportDeps, query: UsageQuery) {
  const { from, to, size, granularity, keyId, knowledgeBaseId, widgetId } = query;
  const report = deps.usage.query({ from, to, granularity, keyId, knowledgeBaseId });
  return { ...report, from, to, visitors: visitorUsage(deps, { from, to, size, widgetId, knowledgeBaseId }) };
}
