import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UsageRepo } from '../../storage/usage-repo.ts';

type MaybeKb = { knowledgeBaseId?: unknown };

function kbIn(source: unknown): string | null {
  const id = source && typeof source === 'object' ? (source as MaybeKb).knowledgeBaseId : undefined;
  return typeof id === 'string' ? id : null;
}

/** The knowledge base a request is about, from its path, body or query string ('' when none). */
function knowledgeBaseOf(request: FastifyRequest): string {
  return kbIn(request.params) ?? kbIn(request.body) ?? kbIn(request.query) ?? '';
}

/**
 * Counts every request an API key made (by key, route and knowledge base) once it is answered,
 * and, for successful ones, the items pushed and the searches. Questions and their latency are
 * counted by the ask route, which knows when a streamed answer ends.
 */
export function registerUsageCounting(app: FastifyInstance, usage: UsageRepo): void {
  // A callback hook, not an async one: it runs on every request and needs no promise.
  app.addHook('onResponse', (request, reply, done) => {
    try {
      countRequest(usage, request, reply);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}

function countRequest(usage: UsageRepo, request: FastifyRequest, reply: FastifyReply): void {
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
}
