import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorSchema } from '../../../common/contract/errors.ts';
import { deleteItemResultSchema, itemIdentityParamsSchema } from '../../../common/contract/jobs.ts';
import type { Services } from '../../services.ts';
import { ApiError } from '../edge/api-error.ts';
import { assertKnowledgeBaseAccess } from '../edge/api-key-auth.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../edge/route-schemas.ts';

/** `DELETE /items/{knowledgeBaseId}/{integrationId}/{externalId}`: an item removed with an API key. */
export const itemWriteRoutes: FastifyPluginAsyncZod<Pick<Services, 'items'>> = async (app, { items }) => {
  app.delete(
    '/items/:knowledgeBaseId/:integrationId/:externalId',
    {
      config: { scope: 'iq:import' },
      schema: {
        tags: ['ingestion'],
        summary: 'Delete an item',
        description: 'Removes the item with its chunks and vectors and cancels its queued or running job.',
        security: apiKeySecurity,
        params: itemIdentityParamsSchema,
        response: { 200: deleteItemResultSchema, ...apiKeyErrorResponses, 404: errorSchema },
      },
    },
    async (request) => {
      const identity = request.params;
      assertKnowledgeBaseAccess(request, [identity.knowledgeBaseId]);
      const outcome = items.delete(identity, Date.now(), { keyId: request.apiKey!.id });
      if (!outcome.existed) {
        throw new ApiError('not_found', `No item "${identity.externalId}" from "${identity.integrationId}" in "${identity.knowledgeBaseId}".`);
      }
      return { deleted: true as const, ...identity, cancelledJobs: outcome.cancelledJobs };
    },
  );
};
