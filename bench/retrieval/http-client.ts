/** The few API calls the eval makes, over real HTTP with an API key, as any integration would. */
import type { SearchMode } from '../../server/retrieval/search.ts';

export type ApiTarget = { url: string; key: string };

export type KnowledgeBaseCounts = { id: string; itemCount: number; chunkCount: number; pendingJobs: number };

export type SearchAnswer = {
  mode: SearchMode;
  tookMs: number;
  results: Array<{ externalId: string; score: number; passages: Array<{ text: string }> }>;
};

async function call<T>(target: ApiTarget, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${target.url}${path}`, {
    method,
    headers: { 'x-api-key': target.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

export function ingestBulk(target: ApiTarget, items: unknown[]): Promise<{ jobCount: number }> {
  return call(target, 'POST', '/ingest/bulk', { items });
}

export async function knowledgeBase(target: ApiTarget, id: string): Promise<KnowledgeBaseCounts | null> {
  const { data } = await call<{ data: KnowledgeBaseCounts[] }>(target, 'GET', '/knowledge-bases');
  return data.find((kb) => kb.id === id) ?? null;
}

export function search(
  target: ApiTarget,
  knowledgeBaseId: string,
  request: { query: string; mode: SearchMode; topK: number },
): Promise<SearchAnswer> {
  return call(target, 'POST', `/knowledge-bases/${encodeURIComponent(knowledgeBaseId)}/search`, request);
}
