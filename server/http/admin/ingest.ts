import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { bulkIngestSchema } from '../../../common/contract/ingest.ts';
import type { JobQueue } from '../../domain/job-queue.ts';
import { bulkLimitCheck, queueBulk } from '../routes/ingest.ts';

export type ImportRoutesOptions = { queue: JobQueue; bulkLimit: number };

/**
 * The dashboard's file import pushes with the signed-in Owner's or Admin's session instead of an
 * API key: the same body, limit, validation and queue as `POST /ingest/bulk`, and the same answer.
 */
export const importRoutes: FastifyPluginAsyncZod<ImportRoutesOptions> = async (app, { queue, bulkLimit }) => {
  app.post(
    '/ingest/bulk',
    { config: { admin: 'manager' }, schema: { body: bulkIngestSchema }, preValidation: bulkLimitCheck(bulkLimit) },
    async (request) => queueBulk(queue, request.body.items, null),
  );
};
