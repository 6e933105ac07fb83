import type { UsageBucket, UsageTotals } from '../../storage/usage-repo.ts';
import type { VisitorUsage } from '../../use-cases/usage-report.ts';
import { isoTime } from './iso-time.ts';

/** Buckets with ISO start times, as the responses carry them. */
export const isoSeries = (series: UsageBucket[]) => series.map(({ start, ...totals }) => ({ start: isoTime(start), ...(totals as UsageTotals) }));

/** The `visitors` part of `GET /usage` and of the dashboard's usage, with ISO times. */
export function visitorUsageView(visitors: VisitorUsage) {
  return { ...visitors, series: visitors.series.map((bucket) => ({ ...bucket, start: isoTime(bucket.start) })) };
}
