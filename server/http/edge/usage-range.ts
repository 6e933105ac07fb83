import { BUCKET_MS, type Granularity } from '../../storage/usage-repo.ts';
import { ApiError } from './api-error.ts';

/** Enough buckets for 90 days by the hour or five years by the day. */
const MAX_BUCKETS = 2_200;
const DEFAULT_SPAN = { hour: 48, day: 30 } as const;

/**
 * The range a usage query covers, shared by `GET /usage` and the dashboard's charts so both
 * accept the same ranges. Throws `invalid_query` for an empty or too long range.
 */
export function usageRange(query: { from?: string | undefined; to?: string | undefined; granularity: Granularity }): { from: number; to: number; size: number } {
  const { granularity } = query;
  const size = BUCKET_MS[granularity];
  // By default the last whole buckets up to and including the current one.
  const to = query.to ? Date.parse(query.to) : Math.ceil((Date.now() + 1) / size) * size;
  const from = query.from ? Date.parse(query.from) : to - DEFAULT_SPAN[granularity] * size;
  if (from >= to) throw new ApiError('invalid_query', '`from` must be before `to`.', [{ path: 'from', message: 'must be before to' }]);
  if ((to - from) / size > MAX_BUCKETS) {
    throw new ApiError('invalid_query', `At most ${MAX_BUCKETS} ${granularity} buckets per request.`, [
      { path: 'granularity', message: 'too many buckets for this range' },
    ]);
  }
  return { from, to, size };
}
