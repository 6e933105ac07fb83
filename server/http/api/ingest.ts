import type { FastifySerializerCompiler } from 'fastify';
import { type FastifyPluginAsyncZod, serializerCompiler } from 'fastify-type-provider-zod';
import { bulkAckSchema, bulkIngestSchema, ingestItemSchema, jobAckSchema } from '../../../common/contract/ingest.ts';
import type { Services } from '../../services.ts';
import { queueItems } from '../../use-cases/queue-items.ts';
import { assertKnowledgeBaseAccess } from '../edge/api-key-auth.ts';
import { bulkLimitCheck } from '../edge/bulk-limit.ts';
import { apiKeySecurity, bodyErrorResponses } from '../edge/route-schemas.ts';

export type IngestRoutesOptions = Pick<Services, 'queue'> & { bulkLimit: number };

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

/** `POST /ingest` and `POST /ingest/bulk`: content pushed with an API key (scope `iq:import`). */
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
      return queueItems(queue, items, request.apiKey!.id);
    },
  );
};
