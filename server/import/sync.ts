import type { ImportTarget } from '../../common/import/import-mapping.ts';
import type { JobStatus, JobView } from '../../common/contract/jobs.ts';
import { ErrorAnswer } from '../../common/contract/errors.ts';
import type { ApiClient } from './api-client.ts';
import { jobsPagePath } from './follow-jobs.ts';

/**
 * Sync mode for full exports: what the knowledge base holds for this integration but the file
 * no longer does. Indexed items come from the item list; items pushed but not yet indexed come
 * from the integration's queued and processing jobs, so a fresh push is not missed either.
 */
export async function findAbsentItems(client: ApiClient, target: ImportTarget, idsInFile: Set<string>): Promise<string[]> {
  const present = new Set<string>();
  let cursor: string | null = null;
  const kb = encodeURIComponent(target.knowledgeBaseId);
  do {
    const query = new URLSearchParams({ integrationId: target.integrationId, limit: '200' });
    if (cursor) query.set('cursor', cursor);
    const page: { data: Array<{ externalId: string }>; nextCursor: string | null } = await client.request(
      'GET',
      `/knowledge-bases/${kb}/items?${query}`,
    );
    for (const item of page.data) present.add(item.externalId);
    cursor = page.nextCursor;
  } while (cursor);
  for (const status of ['queued', 'processing'] as JobStatus[]) {
    cursor = null;
    do {
      const page: { data: JobView[]; nextCursor: string | null } = await client.request('GET', jobsPagePath(target, cursor, status));
      for (const job of page.data) present.add(job.externalId);
      cursor = page.nextCursor;
    } while (cursor);
  }
  return [...present].filter((id) => !idsInFile.has(id)).sort();
}

/** Deletes the items a few at a time; one already gone (404) counts as deleted. */
export async function deleteItems(client: ApiClient, target: ImportTarget, externalIds: string[], concurrency = 4): Promise<number> {
  let next = 0;
  let deleted = 0;
  const path = (id: string) =>
    `/items/${encodeURIComponent(target.knowledgeBaseId)}/${encodeURIComponent(target.integrationId)}/${encodeURIComponent(id)}`;
  const worker = async () => {
    while (next < externalIds.length) {
      const id = externalIds[next++]!;
      try {
        await client.request('DELETE', path(id));
      } catch (error) {
        if (!(error instanceof ErrorAnswer && error.code === 'not_found')) throw error;
      }
      deleted++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, externalIds.length) }, worker));
  return deleted;
}
