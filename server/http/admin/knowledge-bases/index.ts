import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  adminItemListQuerySchema,
  adminJobListQuerySchema,
  type AdminItemSummary,
  itemIdentitySchema,
} from '../../../common/contract/admin.ts';
import {
  knowledgeBaseParamsSchema,
  type KnowledgeBaseSettingsView,
  knowledgeBaseSettingsUpdateSchema,
} from '../../../common/contract/knowledge.ts';
import { synonymsSchema, synonymsUpdateSchema } from '../../../common/contract/synonyms.ts';
import { jobIdParamsSchema, jobLookupQuerySchema } from '../../../common/contract/jobs.ts';
import { decodeCursor, paginate } from '../../domain/cursor.ts';
import type { JobQueue } from '../../domain/job-queue.ts';
import type { MonitorService } from '../../domain/monitor.ts';
import type { SearchService } from '../../retrieval/search.ts';
import type { ItemReadRepo } from '../../storage/item-read-repo.ts';
import type { ItemRepo } from '../../storage/item-repo.ts';
import type { JobRepo } from '../../storage/jobs/job-repo.ts';
import type { MonitorRepo } from '../../storage/monitor-repo.ts';
import type { Originals } from '../../storage/originals.ts';
import { displayPrefix } from '../../domain/api-keys.ts';
import { ApiError } from '../edge/api-error.ts';
import { indexedItemView, itemSummaryView } from '../edge/item-view.ts';
import { assertKnowledgeBaseExists } from '../edge/known-knowledge-base.ts';
import { toJobView } from '../edge/job-view.ts';
import { sessionOf } from '../edge/admin-auth.ts';
import { originalOf } from './file-routes.ts';
import { iso } from './views.ts';

export type KnowledgeAdminOptions = {
  reader: ItemReadRepo;
  items: ItemRepo;
  jobs: JobRepo;
  queue: JobQueue;
  search: SearchService;
  monitorRepo: MonitorRepo;
  monitor: MonitorService;
  originals: Originals;
};

type SummaryRow = {
  knowledge_base_id: string;
  integration_id: string;
  external_id: string;
  source_type: string;
  title: string;
  url: string | null;
  updated_at: number;
  chunk_count: number;
};

/** The settings and where the keyword index they chose is (a re-index to another language shows its progress). */
function settingsView(search: SearchService, knowledgeBaseId: string): KnowledgeBaseSettingsView {
  return { ...search.knowledgeBaseSettings(knowledgeBaseId), keywordIndex: search.keywordIndex(knowledgeBaseId) };
}

function summary(row: SummaryRow): AdminItemSummary {
  return { ...itemSummaryView(row), chunkCount: row.chunk_count };
}

/** Knowledge bases, items and jobs for the dashboard, on the same repositories as the API. */
export const knowledgeAdminRoutes: FastifyPluginAsyncZod<KnowledgeAdminOptions> = async (
  app,
  { reader, items, jobs, queue, search, monitorRepo, monitor, originals },
) => {
  app.get('/knowledge-bases', { config: { admin: 'member' } }, async () => ({
    data: reader.knowledgeBases().map((kb) => ({
      id: kb.id,
      itemCount: kb.item_count,
      chunkCount: kb.chunk_count,
      pendingJobs: kb.pending_jobs,
      createdAt: iso(kb.created_at)!,
    })),
  }));

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
          .filter((item) => !filter.integrationId || item.integration_id === filter.integrationId)
          .map((item) => summary(item));
        return { data, nextCursor: null };
      }
      const beforeId = cursor === undefined ? null : decodeCursor(cursor);
      const page = paginate(reader.list(knowledgeBaseId, filter, limit + 1, beforeId), limit);
      return { data: page.rows.map(summary), nextCursor: page.nextCursor };
    },
  );

  /** A knowledge base's search settings (docs/retrieval.md: typo tolerance, languages) and its keyword index's state. */
  app.get(
    '/knowledge-bases/:knowledgeBaseId/settings',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema } },
    async (request) => {
      assertKnowledgeBaseExists(reader, request.params.knowledgeBaseId);
      return settingsView(search, request.params.knowledgeBaseId);
    },
  );

  app.patch(
    '/knowledge-bases/:knowledgeBaseId/settings',
    { config: { admin: 'manager' }, schema: { params: knowledgeBaseParamsSchema, body: knowledgeBaseSettingsUpdateSchema } },
    async (request) => {
      assertKnowledgeBaseExists(reader, request.params.knowledgeBaseId);
      search.updateKnowledgeBaseSettings(request.params.knowledgeBaseId, request.body);
      return settingsView(search, request.params.knowledgeBaseId);
    },
  );

  /** A knowledge base's synonym sets (docs/retrieval.md: synonyms), applied from the next query on. */
  app.get(
    '/knowledge-bases/:knowledgeBaseId/synonyms',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema, response: { 200: synonymsSchema } } },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      assertKnowledgeBaseExists(reader, knowledgeBaseId);
      return { knowledgeBaseId, sets: search.synonymSets(knowledgeBaseId) };
    },
  );

  app.put(
    '/knowledge-bases/:knowledgeBaseId/synonyms',
    {
      config: { admin: 'manager' },
      schema: { params: knowledgeBaseParamsSchema, body: synonymsUpdateSchema, response: { 200: synonymsSchema } },
    },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      assertKnowledgeBaseExists(reader, knowledgeBaseId);
      return { knowledgeBaseId, sets: search.replaceSynonyms(knowledgeBaseId, request.body.sets) };
    },
  );

  app.delete(
    '/knowledge-bases/:knowledgeBaseId/synonyms',
    { config: { admin: 'manager' }, schema: { params: knowledgeBaseParamsSchema, response: { 200: synonymsSchema } } },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      assertKnowledgeBaseExists(reader, knowledgeBaseId);
      return { knowledgeBaseId, sets: search.replaceSynonyms(knowledgeBaseId, []) };
    },
  );

  /** What the items filter offers, so nobody has to type an integration's exact name. */
  app.get(
    '/knowledge-bases/:knowledgeBaseId/integrations',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema } },
    async (request) => ({
      data: reader.integrations(request.params.knowledgeBaseId).map((row) => ({ id: row.integration_id, itemCount: row.item_count })),
    }),
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
          at: iso(deletion.deletedAt)!,
          byKey: deletion.keyId && { id: deletion.keyId, name: deletion.keyName, prefix: displayPrefix(deletion.keyId) },
          byUser: deletion.username,
        };
        return { indexed: false, deleted, jobs: history, ...identity };
      }
      const original = originalOf(row, originals);
      return {
        indexed: true,
        ...indexedItemView(row, reader),
        chunkCount: row.chunk_count,
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

  app.get('/jobs', { config: { admin: 'member' }, schema: { querystring: adminJobListQuerySchema } }, async (request) => {
    const { limit, cursor, ...filter } = request.query;
    const page = queue.list(filter, limit, cursor);
    return { data: page.rows.map(toJobView), nextCursor: page.nextCursor };
  });

  /** One job by the jobId a push answered (the dashboard follows its uploads with it). */
  app.get(
    '/jobs/:jobId',
    { config: { admin: 'member' }, schema: { params: jobIdParamsSchema, querystring: jobLookupQuerySchema } },
    async (request) => {
      const lookup = queue.find(request.params.jobId, request.query, null);
      if (lookup.found === 'none') throw new ApiError('not_found', `No job "${request.params.jobId}".`);
      if (lookup.found !== 'one') throw new ApiError('ambiguous_job_id', `Several items share the job id "${request.params.jobId}"; add knowledgeBaseId and integrationId.`);
      return toJobView(lookup.job);
    },
  );

  /** Retries the latest job of an item (the one the monitor shows as failed). */
  app.post('/jobs/retry', { config: { admin: 'manager' }, schema: { body: itemIdentitySchema } }, async (request) => {
    const job = jobs.latestForItem(request.body);
    if (!job) throw new ApiError('not_found', 'This item has no job.');
    const outcome = queue.retry(job);
    if (outcome === 'not_failed') throw new ApiError('job_not_retryable', `Only failed jobs can be retried; this one is ${job.status}.`);
    if (outcome === 'newer_queued') throw new ApiError('job_not_retryable', 'A newer version of this item is already queued.');
    monitor.notify();
    return toJobView(queue.get(job.id)!);
  });
};
