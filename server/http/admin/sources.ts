import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AdminWebsiteSource, AdminWebsiteSync } from '../../../common/contract/sources.ts';
import { websiteSourceInputSchema, websiteSourceParamsSchema, websiteSyncParamsSchema } from '../../../common/contract/sources.ts';
import { parseEvery, type WebsiteSource, type WebsiteSync } from '../../domain/website-sources.ts';
import type { Services } from '../../services.ts';
import { ApiError } from '../edge/api-error.ts';
import { isoTime } from '../edge/iso-time.ts';
import { sessionOf } from '../edge/admin-auth.ts';

function syncView(sync: WebsiteSync): AdminWebsiteSync {
  const { skipped, added, updated, unchanged, removed, requests, bytes } = sync.summary;
  return {
    id: sync.id,
    state: sync.state,
    startedAt: isoTime(sync.startedAt),
    finishedAt: sync.finishedAt === null ? null : isoTime(sync.finishedAt),
    added,
    updated,
    unchanged,
    removed,
    skipped,
    requests,
    bytes,
    error: sync.error,
  };
}

function sourceView(source: WebsiteSource, lastSync: WebsiteSync | null): AdminWebsiteSource {
  return {
    id: source.id,
    knowledgeBaseId: source.knowledgeBaseId,
    startUrl: source.settings.startUrl,
    everyHours: source.everyMs === null ? null : source.everyMs / 3_600_000,
    maxPages: source.settings.maxPages,
    include: source.settings.include,
    exclude: source.settings.exclude,
    allowPrivateNetwork: source.settings.allowPrivateNetwork,
    createdAt: isoTime(source.createdAt),
    lastSync: lastSync && syncView(lastSync),
  };
}

/**
 * Website sources for the dashboard: Members see them and their syncs; Owners and Admins add,
 * sync and remove them. Reaching the private network is the Owner's choice alone: it lets
 * LocalIQ read addresses on the shop's own network.
 */
export const sourceRoutes: FastifyPluginAsyncZod<Pick<Services, 'websiteSources'>> = async (app, { websiteSources }) => {
  const find = (sourceId: string) => {
    const entry = websiteSources.list().find(({ source }) => source.id === sourceId);
    if (!entry) throw new ApiError('not_found', `No website source "${sourceId}".`);
    return entry;
  };

  app.get('/sources', { config: { admin: 'member' } }, async () => ({
    sources: websiteSources.list().map(({ source, lastSync }) => sourceView(source, lastSync)),
  }));

  app.post('/sources', { config: { admin: 'manager' }, schema: { body: websiteSourceInputSchema } }, async (request, reply) => {
    const body = request.body;
    if (body.allowPrivateNetwork && sessionOf(request).user.role !== 'owner') {
      throw new ApiError('forbidden', 'Only the Owner can let a source reach the private network.');
    }
    const everyMs = body.every ? parseEvery(body.every) : null;
    if (body.every && everyMs === null) throw new ApiError('invalid_body', 'The source was not added.', [{ path: 'every', message: 'must be a duration such as 30m, 24h or 7d' }]);
    const source = websiteSources.create({ ...body, everyMs });
    const { sync } = websiteSources.sync(source.id);
    return reply.code(201).send(sourceView(source, sync));
  });

  app.get('/sources/:sourceId', { config: { admin: 'member' }, schema: { params: websiteSourceParamsSchema } }, async (request) => {
    const { source, lastSync } = find(request.params.sourceId);
    return sourceView(source, lastSync);
  });

  app.post('/sources/:sourceId/sync', { config: { admin: 'manager' }, schema: { params: websiteSourceParamsSchema } }, async (request, reply) => {
    find(request.params.sourceId);
    return reply.code(202).send(syncView(websiteSources.sync(request.params.sourceId).sync));
  });

  app.get('/sources/:sourceId/syncs/:syncId', { config: { admin: 'member' }, schema: { params: websiteSyncParamsSchema } }, async (request) => {
    const sync = websiteSources.syncById(request.params.syncId);
    if (!sync || sync.sourceId !== request.params.sourceId) throw new ApiError('not_found', `No sync "${request.params.syncId}" of this source.`);
    return syncView(sync);
  });

  app.delete('/sources/:sourceId', { config: { admin: 'manager' }, schema: { params: websiteSourceParamsSchema } }, async (request, reply) => {
    if (!(await websiteSources.remove(request.params.sourceId))) throw new ApiError('not_found', `No website source "${request.params.sourceId}".`);
    return reply.code(204).send();
  });
};
