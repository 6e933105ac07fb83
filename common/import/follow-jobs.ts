import { isFinalJobStatus, JOB_STATUSES, type JobStatus } from '../contract/jobs.ts';
import { type ImportApi, pages } from './api-client.ts';
import type { ImportTarget } from './import-mapping.ts';

/** How many pushed items' latest jobs are in each state; `done` of `total` are final. */
export type JobTally = Record<JobStatus, number> & { done: number; total: number };

export type FollowOptions = {
  /** Stop waiting after this long (the result says `timedOut`); without it, follow until every job is final. */
  waitMs?: number;
  /** Checked after each pause between polls. */
  signal?: AbortSignal;
  onTally?: (tally: JobTally) => void;
  sleep?: (ms: number) => Promise<void>;
};

/** Each poll reads the integration's job list: every second, every three seconds past 1,000 items. */
const pollMs = (items: number) => (items > 1_000 ? 3_000 : 1_000);

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The latest job of each pushed item, from the job list (newest first, so the first job seen for
 * an externalId is its latest). Reading stops as soon as every item has been seen.
 */
async function latestStatuses(api: ImportApi, target: ImportTarget, externalIds: Set<string>): Promise<Map<string, JobStatus>> {
  const latest = new Map<string, JobStatus>();
  for await (const jobs of pages((cursor) => api.jobsPage(target, cursor))) {
    for (const job of jobs) if (externalIds.has(job.externalId) && !latest.has(job.externalId)) latest.set(job.externalId, job.status);
    if (latest.size >= externalIds.size) break;
  }
  return latest;
}

/** Polls until every pushed item's latest job is final (or the wait is over) and counts the states. */
export async function followJobs(
  api: ImportApi,
  target: ImportTarget,
  externalIds: Set<string>,
  options: FollowOptions = {},
): Promise<JobTally & { timedOut: boolean }> {
  const { signal, sleep = wait } = options;
  const deadline = options.waitMs === undefined ? Infinity : Date.now() + options.waitMs;
  for (;;) {
    const latest = await latestStatuses(api, target, externalIds);
    const tally = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as JobTally;
    for (const status of latest.values()) tally[status]++;
    tally.done = [...latest.values()].filter(isFinalJobStatus).length;
    tally.total = externalIds.size;
    options.onTally?.(tally);
    if (tally.done === tally.total) return { ...tally, timedOut: false };
    if (Date.now() >= deadline) return { ...tally, timedOut: true };
    await sleep(Math.min(pollMs(externalIds.size), Math.max(0, deadline - Date.now())));
    signal?.throwIfAborted();
  }
}
