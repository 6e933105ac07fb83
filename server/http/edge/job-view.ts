import type { JobView } from '../../../common/contract/jobs.ts';
import type { Job } from '../../domain/job-record.ts';
import { isoOrNull, isoTime } from './iso-time.ts';

/** A job as the API, the dashboard and `localiq jobs --json` show it. */
export function toJobView(job: Job): JobView {
  return {
    jobId: job.jobId,
    status: job.status,
    knowledgeBaseId: job.knowledgeBaseId,
    integrationId: job.integrationId,
    externalId: job.externalId,
    sourceType: job.sourceType,
    priority: job.priority,
    forceRefresh: job.forceRefresh,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    lastError: job.lastError,
    errors: job.errors,
    note: job.note,
    createdAt: isoTime(job.createdAt),
    updatedAt: isoTime(job.updatedAt),
    runAt: isoTime(job.runAt),
    startedAt: isoOrNull(job.startedAt),
    finishedAt: isoOrNull(job.finishedAt),
  };
}
