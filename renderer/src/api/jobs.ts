import type { z } from 'zod';
import { ADMIN_PREFIX, type itemIdentitySchema } from '../../../common/contract/admin.ts';
import type { JobView, jobLookupQuerySchema } from '../../../common/contract/jobs.ts';
import { get, post, queryString, seg } from './client.ts';

/** Ingestion jobs and the live monitor: `/admin/api/jobs` and `/admin/api/events`. */

export const getJob = (jobId: string, lookup: z.input<typeof jobLookupQuerySchema>) => get<JobView>(`/jobs/${seg(jobId)}${queryString(lookup)}`);
/** Queues the item's last failed job again. */
export const retryJob = (item: z.input<typeof itemIdentitySchema>) => post<JobView>('/jobs/retry', item);

/** The live monitor's Server-Sent Events (a MonitorSnapshot each), for an EventSource. */
export const MONITOR_EVENTS_URL = `${ADMIN_PREFIX}/events`;
