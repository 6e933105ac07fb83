import type { IngestItem } from '../../common/contract/ingest.ts';
import type { JobQueue } from '../domain/job-queue.ts';

/**
 * Queues validated items and answers as `POST /ingest/bulk` does: the API's bulk push, the
 * dashboard's import (`POST /admin/api/ingest/bulk`, no API key: `apiKeyId` null) and file uploads.
 */
export async function queueItems(queue: JobQueue, items: IngestItem[], apiKeyId: string | null) {
  const result = await queue.push(items, apiKeyId);
  return {
    status: 'queued' as const,
    jobCount: result.jobCount,
    estimatedTime: queue.estimate(result),
    jobIds: result.jobIds,
  };
}

export type BulkAck = Awaited<ReturnType<typeof queueItems>>;
