import type { SourceType } from '../../common/contract/ingest.ts';
import type { JobStatus, PriorityName } from '../../common/contract/jobs.ts';

/** An item's identity: the same external id may exist in several integrations and knowledge bases. */
export type ItemIdentity = { knowledgeBaseId: string; integrationId: string; externalId: string };

/** One failed attempt as the job keeps it; `at` is ISO 8601 (UTC). */
export type JobAttemptError = { attempt: number; message: string; at: string };

/** A job as the domain sees it: one push of one item and how its processing went. Times in milliseconds since the epoch. */
export type Job = ItemIdentity & {
  /** The job table's own id: the handle for reading or retrying this very job. */
  id: number;
  /** The seed's job identifier, `integrationId-externalId` (jobs.ts); not unique. */
  jobId: string;
  sourceType: SourceType;
  status: JobStatus;
  priority: PriorityName;
  forceRefresh: boolean;
  attempts: number;
  maxAttempts: number;
  /** The error of the last attempt when that attempt failed; null once a run ends without failing. */
  lastError: string | null;
  /** Every failed attempt, oldest first: history, kept when a later attempt succeeds. */
  errors: JobAttemptError[];
  /** Why a run that did not fail ended as it did (superseded, deleted, pages read by OCR); never an error. */
  note: string | null;
  createdAt: number;
  updatedAt: number;
  /** When the job is (or was) due: a failed attempt puts it off by the backoff. */
  runAt: number;
  startedAt: number | null;
  finishedAt: number | null;
};

/** A job as the pipeline claims it: with the version it carries and the pushed item's data. */
export type ClaimedJob = Job & {
  /** The push's place in the item's history: a version with a lower seq never replaces a higher one. */
  seq: number;
  contentHash: string;
  /** The pushed item's `data`, as JSON (parsed where it is read: a file job's is read differently). */
  data: string;
};
