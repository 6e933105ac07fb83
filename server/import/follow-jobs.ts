import type { ImportTarget } from '../../common/import/import-mapping.ts';
import { JOB_STATUSES, type JobStatus, type JobView } from '../../common/contract/jobs.ts';
import type { ApiClient } from './api-client.ts';

export type JobTally = Record<JobStatus, number>;

const FINAL: ReadonlySet<JobStatus> = new Set(['succeeded', 'skipped', 'failed', 'cancelled']);
const POLL_MS = 1_000;

/** Path and query of one page of an integration's jobs in a knowledge base, newest first. */
export function jobsPagePath(target: ImportTarget, cursor: string | null, status?: JobStatus): string {
  const query = new URLSearchParams({ knowledgeBaseId: target.knowledgeBaseId, integrationId: target.integrationId, limit: '500' });
  if (status) query.set('status', status);
  if (cursor) query.set('cursor', cursor);
  return `/jobs?${query}`;
}

/**
 * The latest job of each pushed item, read from `GET /jobs` (newest first, so the first job seen
 * for an externalId is its latest). Reading stops as soon as every item has been seen.
 */
async function latestStatuses(client: ApiClient, target: ImportTarget, externalIds: Set<string>): Promise<Map<string, JobStatus>> {
  const latest = new Map<string, JobStatus>();
  let cursor: string | null = null;
  do {
    const page: { data: JobView[]; nextCursor: string | null } = await client.request('GET', jobsPagePath(target, cursor));
    for (const job of page.data) {
      if (externalIds.has(job.externalId) && !latest.has(job.externalId)) latest.set(job.externalId, job.status);
    }
    cursor = page.nextCursor;
  } while (cursor && latest.size < externalIds.size);
  return latest;
}

/** Polls until every pushed item's latest job is final (or the time is up) and counts the outcomes. */
export async function followJobs(
  client: ApiClient,
  target: ImportTarget,
  externalIds: Set<string>,
  waitMs: number,
  onProgress: (state: { done: number; total: number }) => void,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<JobTally & { timedOut: boolean }> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const latest = await latestStatuses(client, target, externalIds);
    const tally = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as JobTally;
    for (const status of latest.values()) tally[status]++;
    const done = [...latest.values()].filter((s) => FINAL.has(s)).length;
    onProgress({ done, total: externalIds.size });
    if (done === externalIds.size) return { ...tally, timedOut: false };
    if (Date.now() >= deadline) return { ...tally, timedOut: true };
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
  }
}
