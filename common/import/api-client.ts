import type { IngestItem } from '../contract/ingest.ts';
import type { JobStatus } from '../contract/jobs.ts';
import type { ImportTarget } from './import-mapping.ts';

/** One page of a list route; `nextCursor` reads the next one and is null on the last. */
export type Page<T> = { data: T[]; nextCursor: string | null };

/**
 * What an import asks of LocalIQ. `localiq import` answers it with the public API and an API
 * key, the dashboard with the admin API and the signed-in session (both through
 * httpImportApi). Each call retries what is worth retrying (429, 5xx, a dropped connection)
 * itself; a request the server refuses rejects with an ErrorAnswer (common/contract/errors.ts),
 * whose code the import reads.
 */
export interface ImportApi {
  /** `POST /ingest/bulk`: resolves with the job of each item, in the items' order. */
  pushBatch(items: IngestItem[]): Promise<{ jobIds: string[] }>;
  /** One page of the integration's jobs in the knowledge base, newest first; only jobs in `status` when given. */
  jobsPage(target: ImportTarget, cursor: string | null, status?: JobStatus): Promise<Page<{ externalId: string; status: JobStatus }>>;
  /** One page of the integration's indexed items in the knowledge base. */
  itemsPage(target: ImportTarget, cursor: string | null): Promise<Page<{ externalId: string }>>;
  deleteItem(target: ImportTarget, externalId: string): Promise<void>;
  /**
   * Whether LocalIQ still holds the job. Absent where the API cannot look a job up by id (the
   * admin API); a resume point is then taken as it is.
   */
  jobExists?(target: ImportTarget, jobId: string): Promise<boolean>;
}

/** Every entry of a paged list, page by page; stopping early reads no further page. */
export async function* pages<T>(read: (cursor: string | null) => Promise<Page<T>>): AsyncGenerator<T[]> {
  let cursor: string | null = null;
  do {
    const page: Page<T> = await read(cursor);
    yield page.data;
    cursor = page.nextCursor;
  } while (cursor);
}
