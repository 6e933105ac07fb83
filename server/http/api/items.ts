import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorSchema } from '../../../common/contract/errors.ts';
import { deleteItemResultSchema, itemIdentityParamsSchema } from '../../../common/contract/jobs.ts';
import type { ItemRepo } from '../../storage/item-repo.ts';
import { ApiError } from '../edge/api-error.ts';
import { assertKnowledgeBaseAccess } from '../edge/api-key-auth.ts';
import { apiKeyErrorResponses, apiKeySecurity } from '../edge/route-schemas.ts';

export type ItemWriteRoutesOptions = { items: ItemRepo; clock?: () => number };

export const itemWriteRoutes: FastifyPluginAsyncZod<ItemWriteRoutesOptions> = async (app, { items, clock = Date.now }) => {
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
      const outcome = items.delete(identity, clock(), { keyId: request.apiKey!.id });
      if (!outcome.existed) {
        throw new ApiError('not_found', `No item "${identity.externalId}" from "${identity.integrationId}" in "${identity.knowledgeBaseId}".`);
      }
      return { deleted: true as const, ...identity, cancelledJobs: outcome.cancelledJobs };
    },
  );
};
