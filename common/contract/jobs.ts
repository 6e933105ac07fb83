import { z } from 'zod';
import { sourceTypeSchema } from './ingest.ts';
import { identifier } from './text-rules.ts';

export const JOB_STATUSES = ['queued', 'processing', 'succeeded', 'skipped', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** A job in one of these states still has work ahead of it. */
export const OPEN_JOB_STATUSES = ['queued', 'processing'] as const satisfies readonly JobStatus[];
/** A job in one of these states is done for good: it never changes again. */
export const FINAL_JOB_STATUSES = ['succeeded', 'skipped', 'failed', 'cancelled'] as const satisfies readonly JobStatus[];
export type FinalJobStatus = (typeof FINAL_JOB_STATUSES)[number];
export function isFinalJobStatus(status: JobStatus): status is FinalJobStatus {
  return (FINAL_JOB_STATUSES as readonly JobStatus[]).includes(status);
}
/**
 * A job's notes that LocalIQ writes itself: why a run that did not fail ended as it did (a job's
 * `note`, never its `lastError`). A file read by OCR gets a note of its own, naming the pages.
 */
export const JOB_NOTES = {
  superseded: 'superseded by a newer version',
  deleted: 'the item was deleted',
} as const;

export const PRIORITY_NAMES = ['high', 'normal', 'low'] as const;
export type PriorityName = (typeof PRIORITY_NAMES)[number];

export const jobStatusSchema = z.enum(JOB_STATUSES);

export const jobSchema = z
  .strictObject({
    jobId: z.string(),
    status: jobStatusSchema,
    knowledgeBaseId: z.string(),
    integrationId: z.string(),
    externalId: z.string(),
    sourceType: sourceTypeSchema,
    priority: z.enum(PRIORITY_NAMES),
    forceRefresh: z.boolean(),
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    lastError: z
      .string()
      .nullable()
      .describe("The error of the job's last attempt when that attempt failed; null once a run ends without failing."),
    errors: z
      .array(z.strictObject({ attempt: z.number().int(), message: z.string(), at: z.string() }))
      .describe('Every failed attempt, oldest first: the history, kept when a later attempt succeeds.'),
    note: z
      .string()
      .nullable()
      .describe(
        'Why a run that did not fail ended as it did: "superseded by a newer version", "the item was deleted", or which pages of a file were read by OCR. Not an error.',
      ),
    createdAt: z.string(),
    updatedAt: z.string(),
    runAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'Job' });
export type JobView = z.infer<typeof jobSchema>;

export const jobListQuerySchema = z.strictObject({
  status: jobStatusSchema.optional(),
  knowledgeBaseId: identifier().optional(),
  integrationId: identifier().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(64).optional(),
});

export const jobLookupQuerySchema = z.strictObject({
  knowledgeBaseId: identifier().optional().describe('Narrows the lookup when the same jobId exists in several knowledge bases.'),
  integrationId: identifier().optional().describe('Narrows the lookup when hyphens make the jobId ambiguous.'),
});

export const jobListSchema = z
  .strictObject({
    data: z.array(jobSchema),
    nextCursor: z.string().nullable().describe('Pass as `cursor` to read the next page; null on the last page.'),
  })
  .meta({ id: 'JobList' });

export const jobIdParamsSchema = z.strictObject({ jobId: z.string().min(1).max(513) });

export const itemIdentityParamsSchema = z.strictObject({
  knowledgeBaseId: identifier(),
  integrationId: identifier(),
  externalId: identifier(),
});

export const deleteItemResultSchema = z
  .strictObject({
    deleted: z.literal(true),
    knowledgeBaseId: z.string(),
    integrationId: z.string(),
    externalId: z.string(),
    cancelledJobs: z.number().int().describe("The item's jobs that were queued or running and are now cancelled."),
  })
  .meta({ id: 'DeletedItem' });
