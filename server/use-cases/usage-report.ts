import type { z } from 'zod';
import type { visitorUsageSchema } from '../../common/contract/usage.ts';
import type { VisitorConversations } from '../domain/visitor-conversations.ts';
import type { VisitorAnalyticsRepo } from '../storage/visitor-analytics-repo.ts';
import { isoTime } from './edge/iso-time.ts';

export type VisitorUsageReport = z.infer<typeof visitorUsageSchema>;
export type VisitorUsageDeps = { visitors: VisitorConversations; visitorAnalytics: VisitorAnalyticsRepo };

/** Top questions and cited items listed. */
const TOP = 10;

/** Visitors use no API key: what a query for one key's usage finds of them. */
export const NO_VISITORS: VisitorUsageReport = {
  totals: { questions: 0, answered: 0, feedbackUp: 0, feedbackDown: 0 },
  byWidget: [],
  summary: { questions: 0, answered: 0, answeredShare: null, feedbackUp: 0, feedbackDown: 0, sessions: 0, answerTimeMs: { median: null, p95: null } },
  series: [],
  byKnowledgeBase: [],
  topQuestions: [],
  topCitedItems: [],
};

/** The `visitors` part of a usage report, shared by `GET /usage` and the dashboard's Usage screen. */
export function visitorUsage(
  { visitors, visitorAnalytics }: VisitorUsageDeps,
  query: { from: number; to: number; size: number; widgetId?: string | undefined; knowledgeBaseId?: string | undefined; knowledgeBaseIds?: string[] | undefined },
): VisitorUsageReport {
  const { from, to, widgetId, knowledgeBaseId, knowledgeBaseIds } = query;
  const counts = visitors.usage({ from, to, widgetId, knowledgeBaseId, knowledgeBaseIds });
  const analytics = visitorAnalytics.analytics({ ...query, top: TOP });
  return {
    ...counts,
    summary: analytics.summary,
    series: analytics.series.map((b) => ({ ...b, start: isoTime(b.start) })),
    byKnowledgeBase: analytics.byKnowledgeBase,
    topQuestions: analytics.topQuestions,
    topCitedItems: analytics.topCitedItems,
  };
}
