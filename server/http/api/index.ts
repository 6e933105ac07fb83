import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.ts';
import type { FileLimits } from '../edge/file-upload.ts';
import { articleRoutes } from './articles.ts';
import { ingestRoutes } from './ingest.ts';
import { itemWriteRoutes } from './items.ts';
import { jobRoutes } from './jobs.ts';
import { askRoutes } from './knowledge-bases/ask.ts';
import { fileRoutes } from './knowledge-bases/files.ts';
import { knowledgeBaseRoutes } from './knowledge-bases/index.ts';
import { knowledgeBaseItemRoutes } from './knowledge-bases/items.ts';
import { knowledgeBaseSearchRoutes } from './knowledge-bases/search.ts';
import { usageRoutes } from './usage.ts';

export type IntegrationApiOptions = Pick<
  Services,
  'queue' | 'originals' | 'db' | 'items' | 'reader' | 'jobs' | 'search' | 'askQuestion' | 'articles' | 'usage' | 'visitorConversations' | 'visitorAnalytics'
> & {
  /** Most items in one bulk push (LOCALIQ_BULK_LIMIT). */
  bulkLimit: number;
  fileLimits: FileLimits;
};

/**
 * The integration API of the specification (common/contract, the OpenAPI document at /docs):
 * every route takes an API key with the scope it declares (edge/api-key-auth.ts). One file per
 * resource, named by its URL.
 */
export const integrationApi: FastifyPluginAsync<IntegrationApiOptions> = async (app, options) => {
  await app.register(ingestRoutes, options);
  await app.register(fileRoutes, { ...options, limits: options.fileLimits });
  await app.register(jobRoutes, options);
  await app.register(itemWriteRoutes, options);
  await app.register(knowledgeBaseRoutes, options);
  await app.register(knowledgeBaseItemRoutes, options);
  await app.register(knowledgeBaseSearchRoutes, options);
  await app.register(askRoutes, options);
  await app.register(articleRoutes, options);
  await app.register(usageRoutes, options);
};
