import type { Granularity, UsageBucket, UsageTotals } from '../../storage/usage-repo.ts';
import type { dashboardUsageReport, VisitorUsage } from '../../use-cases/usage-report.ts';
import { isoTime } from './iso-time.ts';

/** Buckets with ISO start times, as the responses carry them. */
const isoSeries = (series: UsageBucket[]) => series.map(({ start, ...totals }) => ({ start: isoTime(start), ...(totals as UsageTotals) }));

/** The `visitors` part of `GET /usage` and of the dashboard's usage, with ISO times. */
function visitorUsageView(visitors: VisitorUsage) {
  return { ...visitors, series: visitors.series.map((bucket) => ({ ...bucket, start: isoTime(bucket.start) })) };
}

/** A usage report as `GET /usage` answers it, ISO times throughout (the dashboard's leaves `byRoute` out). */
export function usageReportView(report: ReturnType<typeof dashboardUsageReport>, granularity: Granularity) {
  return {
    from: isoTime(report.from),
    to: isoTime(report.to),
    granularity,
    series: isoSeries(report.series),
    totals: report.totals,
    byKey: report.byKey,
    byKnowledgeBase: report.byKnowledgeBase,
    byRoute: report.byRoute,
    visitors: visitorUsageView(report.visitors),
  };
}
