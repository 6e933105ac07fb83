import { ErrorAnswer } from '../contract/errors.ts';
import type { ImportTarget } from './import-mapping.ts';
import type { ImportApi, Page } from './api-client.ts';

/** Sends one JSON request and resolves with the parsed answer; a refusal rejects with an ErrorAnswer. */
export type JsonRequest = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => Promise<unknown>;

/**
 * The import's calls as LocalIQ's HTTP routes. The public API (`'public'`, API key) and the admin
 * API (`'admin'`, the session; the caller's request adds the `/admin/api` prefix) share the paths
 * of the bulk push and the job and item lists. They differ in where an item is deleted, and only
 * the public API looks a job up by id.
 */
export function httpImportApi(request: JsonRequest, routes: 'public' | 'admin'): ImportApi {
  const kb = (target: ImportTarget) => encodeURIComponent(target.knowledgeBaseId);
  const api: ImportApi = {
    pushBatch: async (items) => (await request('POST', '/ingest/bulk', { items })) as { jobIds: string[] },
    async jobsPage(target, cursor, status) {
      const query = new URLSearchParams({ knowledgeBaseId: target.knowledgeBaseId, integrationId: target.integrationId, limit: '500' });
      if (status) query.set('status', status);
      if (cursor) query.set('cursor', cursor);
      return (await request('GET', `/jobs?${query}`)) as Awaited<ReturnType<ImportApi['jobsPage']>>;
    },
    async itemsPage(target, cursor) {
      const query = new URLSearchParams({ integrationId: target.integrationId, limit: '200' });
      if (cursor) query.set('cursor', cursor);
      return (await request('GET', `/knowledge-bases/${kb(target)}/items?${query}`)) as Page<{ externalId: string }>;
    },
    async deleteItem(target, externalId) {
      const item = `${encodeURIComponent(target.integrationId)}/${encodeURIComponent(externalId)}`;
      await request('DELETE', routes === 'public' ? `/items/${kb(target)}/${item}` : `/knowledge-bases/${kb(target)}/items/${item}`);
    },
  };
  if (routes === 'public') {
    api.jobExists = async (target, jobId) => {
      try {
        await request('GET', `/jobs/${encodeURIComponent(jobId)}?${new URLSearchParams({ knowledgeBaseId: target.knowledgeBaseId })}`);
        return true;
      } catch (error) {
        if (error instanceof ErrorAnswer && error.status === 404) return false;
        throw error;
      }
    };
  }
  return api;
}
