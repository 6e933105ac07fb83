import { ErrorAnswer } from '../contract/errors.ts';
import { OPEN_JOB_STATUSES } from '../contract/jobs.ts';
import { type ImportApi, pages } from './api-client.ts';
import type { ImportTarget } from './import-mapping.ts';

/**
 * Sync mode, for full exports: after the import, what the knowledge base holds for the
 * integration but the file no longer does is deleted, once the person importing confirms how
 * many. A file with no rows never syncs: an empty export would delete everything.
 */
export const SYNC_SKIPPED_EMPTY_FILE = 'Sync skipped: the file holds no rows, and an empty export would delete everything.';

/**
 * What the knowledge base holds for this integration but the file does not, sorted. Indexed items
 * come from the item list; items pushed but not indexed yet from the integration's queued and
 * processing jobs, so a fresh push is not missed either. The jobs are read first: a job that ends
 * between the two reads has its item in the list read after it (read the other way round, it would
 * be in neither).
 */
export async function findAbsentItems(api: ImportApi, target: ImportTarget, idsInFile: Set<string>): Promise<string[]> {
  const present = new Set<string>();
  for (const status of OPEN_JOB_STATUSES) {
    for await (const jobs of pages((cursor) => api.jobsPage(target, cursor, status))) for (const job of jobs) present.add(job.externalId);
  }
  for await (const items of pages((cursor) => api.itemsPage(target, cursor))) for (const item of items) present.add(item.externalId);
  return [...present].filter((id) => !idsInFile.has(id)).sort();
}

/** Deletes the items a few at a time; one already gone (404) counts as deleted. */
export async function deleteItems(api: ImportApi, target: ImportTarget, externalIds: string[], concurrency = 4): Promise<number> {
  let next = 0;
  let deleted = 0;
  const worker = async () => {
    while (next < externalIds.length) {
      const id = externalIds[next++]!;
      try {
        await api.deleteItem(target, id);
      } catch (error) {
        if (!(error instanceof ErrorAnswer && error.code === 'not_found')) throw error;
      }
      deleted++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, externalIds.length) }, worker));
  return deleted;
}
