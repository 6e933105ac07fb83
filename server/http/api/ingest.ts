import type { FastifyRequest, FastifySerializerCompiler } from 'fastify';
import { type FastifyPluginAsyncZod, serializerCompiler } from 'fastify-type-provider-zod';
import { bulkAckSchema, bulkIngestSchema, type IngestItem, ingestItemSchema, jobAckSchema } from '../../../common/contract/ingest.ts';
import type { JobQueue } from '../../domain/job-queue.ts';
import { ApiError } from '../edge/api-error.ts';
import { assertKnowledgeBaseAccess } from '../edge/api-key-auth.ts';
import { apiKeySecurity, bodyErrorResponses } from '../edge/route-schemas.ts';

export type IngestRoutesOptions = { queue: JobQueue; bulkLimit: number };

/**
 * The single-item acknowledgement is written directly: it is answered thousands of times a
 * second, and its shape is fixed ({status: 'queued', jobId}), so checking it against the schema
 * on every answer bought nothing. Every other status goes through the schema as usual.
 */
const serializeAck = (ack: { jobId: string }) => `{"status":"queued","jobId":${JSON.stringify(ack.jobId)}}`;
const ackSerializerCompiler: FastifySerializerCompiler<unknown> = (route) =>
  route.httpStatus === '200'
    ? (serializeAck as (data: unknown) => string)
    : serializerCompiler(route as Parameters<typeof serializerCompiler>[0]);

export const ingestRoutes: FastifyPluginAsyncZod<IngestRoutesOptions> = async (app, { queue, bulkLimit }) => {
  app.post(
    '/ingest',
    {
      config: { scope: 'iq:import' },
      schema: {
        tags: ['ingestion'],
        summary: 'Push one item',
        description: 'Queues the item for processing. The job is on disk before this answers.',
        security: apiKeySecurity,
        body: ingestItemSchema,
        response: { 200: jobAckSchema, ...bodyErrorResponses },
      },
      serializerCompiler: ackSerializerCompiler,
    },
    async (request) => {
      assertKnowledgeBaseAccess(request, [request.body.knowledgeBaseId]);
      const result = await queue.push([request.body], request.apiKey!.id);
      return { status: 'queued' as const, jobId: result.jobIds[0]! };
    },
  );

  app.post(
    '/ingest/bulk',
    {
      config: { scope: 'iq:import' },
      schema: {
        tags: ['ingestion'],
        summary: 'Push many items',
        description: `Validates all items first (nothing is queued if any is invalid), then queues them in one transaction. At most ${bulkLimit} items.`,
        security: apiKeySecurity,
        body: bulkIngestSchema,
        response: { 200: bulkAckSchema, ...bodyErrorResponses },
      },
      preValidation: bulkLimitCheck(bulkLimit),
    },
    async (request) => {
      const { items } = request.body;
      assertKnowledgeBaseAccess(
        request,
        items.map((item) => item.knowledgeBaseId),
        items.map((_, index) => `items.${index}.knowledgeBaseId`),
      );
      return queueBulk(queue, items, request.apiKey!.id);
    },
  );
};

/** Refuses a bulk request over the limit before each of its items is validated. */
export function bulkLimitCheck(bulkLimit: number) {
  return async (request: FastifyRequest) => {
    const items = (request.body as { items?: unknown } | null)?.items;
    if (Array.isArray(items) && items.length > bulkLimit) {
      throw new ApiError('too_many_items', `A bulk request takes at most ${bulkLimit} items; this one has ${items.length}.`);
    }
  };
}

/**
 * Queues validated items and answers as `POST /ingest/bulk` does; the dashboard's import
 * (`POST /admin/api/ingest/bulk`, no API key: `apiKeyId` null) goes through it too.
 */
export async function queueBulk(queue: JobQueue, items: IngestItem[], apiKeyId: string | null) {
  const result = await queue.push(items, apiKeyId);
  return {
    status: 'queued' as const,
    jobCount: result.jobCount,
    estimatedTime: queue.estimate(result),
    jobIds: result.jobIds,
  };
}
