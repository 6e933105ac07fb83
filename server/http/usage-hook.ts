import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UsageRepo } from '../storage/usage-repo.ts';

type MaybeKb = { knowledgeBaseId?: unknown };

/** The knowledge base a request is about, from its path, body or query string ('' when none). */
function knowledgeBaseOf(request: FastifyRequest): string {
  for (const source of [request.params, request.body, request.query] as MaybeKb[]) {
    if (source && typeof source === 'object' && typeof source.knowledgeBaseId === 'string') return source.knowledgeBaseId;
  }
  return '';
}

/**
 * Counts every request an API key made (by key, route and knowledge base) once it is answered,
 * and, for successful ones, the items pushed and the searches. Questions and their latency are
 * counted by the ask route, which knows when a streamed answer ends.
 */
export function registerUsageCounting(app: FastifyInstance, usage: UsageRepo): void {
  app.addHook('onResponse', async (request, reply) => {
    const key = request.apiKey;
    if (!key) return;
    const route = `${request.method} ${request.routeOptions.url ?? ''}`;
    const knowledgeBaseId = knowledgeBaseOf(request);
    usage.count('requests', { keyId: key.id, knowledgeBaseId, route });
    if (reply.statusCode !== 200) return;
    if (route === 'POST /ingest') usage.count('items_pushed', { keyId: key.id, knowledgeBaseId });
    if (route === 'POST /ingest/bulk') {
      const items = (request.body as { items?: MaybeKb[] } | undefined)?.items ?? [];
      for (const item of items) usage.count('items_pushed', { keyId: key.id, knowledgeBaseId: String(item.knowledgeBaseId ?? '') });
    }
    if (route === 'POST /knowledge-bases/:knowledgeBaseId/search') usage.count('searches', { keyId: key.id, knowledgeBaseId });
  });
}
