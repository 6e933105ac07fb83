import type { SourceType } from '../../../common/contract/ingest.ts';
import { PRIORITY_NAMES, type JobStatus } from '../../../common/contract/jobs.ts';
import type { ClaimedJob, Job, JobAttemptError } from '../../domain/job-record.ts';

/** A row of the jobs table (migration 1; `note` since migration 21; `suspect` and `solo_crashes` since migration 23). */
export type JobRow = {
  id: number;
  job_id: string;
  knowledge_base_id: string;
  integration_id: string;
  external_id: string;
  source_type: string;
  data: string;
  content_hash: string;
  force_refresh: number;
  priority: number;
  seq: number;
  enqueued_at: number;
  sort_key: number;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  run_at: number;
  locked_at: number | null;
  last_error: string | null;
  errors: string;
  note: string | null;
  /** 1 while a crash interrupted it and it is not yet proven innocent or guilty (recover-stale.ts). */
  suspect: number;
  /** The crashes it was alone in flight for, as a suspect. */
  solo_crashes: number;
  api_key_id: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
};

/** A job row as the domain sees it. */
export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    jobId: row.job_id,
    knowledgeBaseId: row.knowledge_base_id,
    integrationId: row.integration_id,
    externalId: row.external_id,
    sourceType: row.source_type as SourceType,
    status: row.status,
    priority: PRIORITY_NAMES[row.priority] ?? 'normal',
    forceRefresh: row.force_refresh === 1,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    lastError: row.last_error,
    errors: JSON.parse(row.errors) as JobAttemptError[],
    note: row.note,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    runAt: row.run_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** A claimed job's row as the pipeline sees it. */
export function toClaimedJob(row: JobRow): ClaimedJob {
  return { ...toJob(row), seq: row.seq, contentHash: row.content_hash, data: row.data };
}
