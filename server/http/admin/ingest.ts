import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { bulkIngestSchema } from '../../../common/contract/ingest.ts';
import type { Services } from '../../services.ts';
import { queueItems } from '../../use-cases/queue-items.ts';
import { bulkLimitCheck } from '../edge/bulk-limit.ts';

export type ImportRoutesOptions = Pick<Services, 'queue'> & { bulkLimit: number };

/**
 * `POST /ingest/bulk`: the dashboard's file import pushes with the signed-in Owner's or Admin's session instead of an
 * API key: the same body, limit, validation and queue as `POST /ingest/bulk`, and the same answer.
 */
export const importRoutes: FastifyPluginAsyncZod<ImportRoutesOptions> = async (app, { queue, bulkLimit }) => {
  app.post(
    '/ingest/bulk',
    { config: { admin: 'manager' }, schema: { body: bulkIngestSchema }, preValidation: bulkLimitCheck(bulkLimit) },
    async (request) => queueItems(queue, request.body.items, null),
  );
};
