import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { adminItemListQuerySchema, type AdminItemSummary, itemIdentitySchema } from '../../../../common/contract/admin.ts';
import { knowledgeBaseParamsSchema } from '../../../../common/contract/knowledge.ts';
import { displayPrefix } from '../../../domain/api-keys.ts';
import { decodeCursor, paginate } from '../../../domain/cursor.ts';
import type { ItemSummary } from '../../../domain/item-record.ts';
import type { Services } from '../../../services.ts';
import type { MonitorRepo } from '../../../storage/monitor-repo.ts';
import { originalOf } from '../../../use-cases/item-original.ts';
import { sessionOf } from '../../edge/admin-auth.ts';
import { ApiError } from '../../edge/api-error.ts';
import { isoTime } from '../../edge/iso-time.ts';
import { indexedItemView, itemSummaryView } from '../../edge/item-view.ts';
import { toJobView } from '../../edge/job-view.ts';

export type ItemAdminOptions = Pick<Services, 'reader' | 'items' | 'search' | 'monitor' | 'originals'> & { monitorRepo: MonitorRepo };


function summary(row: ItemSummary): AdminItemSummary {
  return { ...itemSummaryView(row), chunkCount: row.chunkCount };
}

/**
 * `/knowledge-bases/{id}/items`: a knowledge base's items for the dashboard (a text search ranks
 * them), one item with its chunks, job history and original, or what is left of a deleted one;
 * the Owner and Admins delete items.
 */
export const itemAdminRoutes: FastifyPluginAsyncZod<ItemAdminOptions> = async (app, { reader, items, search, monitorRepo, monitor, originals }) => {
  app.get(
    '/knowledge-bases/:knowledgeBaseId/items',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema, querystring: adminItemListQuerySchema } },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      const { limit, cursor, q, ...filter } = request.query;
      if (q) {
        // A text search ranks by relevance (keywords), one page; filters still apply.
        const outcome = await search.search(knowledgeBaseId, q, {
          mode: 'keyword',
          topK: limit,
          sourceTypes: filter.sourceType ? [filter.sourceType] : null,
          passages: 0,
        });
        const data = outcome.hits
          .map((hit) => hit.item)
          .filter((item) => !filter.integrationId || item.integrationId === filter.integrationId)
          .map((item) => summary(item));
        return { data, nextCursor: null };
      }
      const beforeId = cursor === undefined ? null : decodeCursor(cursor);
      const page = paginate(reader.list(knowledgeBaseId, filter, limit + 1, beforeId), limit);
      return { data: page.rows.map(summary), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/knowledge-bases/:knowledgeBaseId/items/:integrationId/:externalId',
    { config: { admin: 'member' }, schema: { params: itemIdentitySchema } },
    async (request) => {
      const identity = request.params;
      const row = reader.get(identity);
      const history = monitorRepo.itemJobs(identity, 50).map(toJobView);
      if (!row) {
        if (history.length === 0) throw new ApiError('not_found', `No item "${identity.externalId}" from "${identity.integrationId}".`);
        // Deleted (and not pushed since), or pushed but not indexed yet (or failed): the history
        // is what there is to show.
        const deletion = items.deletion(identity);
        const deleted = deletion && {
          at: isoTime(deletion.deletedAt),
          byKey: deletion.keyId && { id: deletion.keyId, name: deletion.keyName, prefix: displayPrefix(deletion.keyId) },
          byUser: deletion.username,
        };
        return { indexed: false, deleted, jobs: history, ...identity };
      }
      const original = originalOf(row, originals);
      return {
        indexed: true,
        ...indexedItemView(row, reader),
        chunkCount: row.chunkCount,
        jobs: history,
        // An item made from an uploaded file: the dashboard links to it as it was uploaded.
        original: original && { fileName: original.fileName, kind: original.kind, contentType: original.contentType, bytes: original.bytes },
      };
    },
  );

  app.delete(
    '/knowledge-bases/:knowledgeBaseId/items/:integrationId/:externalId',
    { config: { admin: 'manager' }, schema: { params: itemIdentitySchema } },
    async (request) => {
      const outcome = items.delete(request.params, Date.now(), { userId: sessionOf(request).user.id });
      if (!outcome.existed) throw new ApiError('not_found', `No item "${request.params.externalId}".`);
      monitor.notify();
      return { deleted: true, ...request.params, cancelledJobs: outcome.cancelledJobs };
    },
  );
};
