import fs from 'node:fs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { itemIdentitySchema } from '../../../../common/contract/admin.ts';
import { inlineDisposition } from '../../../domain/original-file.ts';
import type { Services } from '../../../services.ts';
import { originalOf } from '../../../use-cases/item-original.ts';
import { ApiError } from '../../edge/api-error.ts';

/**
 * What a served original may do in the browser: nothing. `sandbox` gives the response an opaque
 * origin with no scripts, forms, or popups, so an uploaded HTML page cannot act as the dashboard;
 * it may show its own styles and images.
 */
const ORIGINAL_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; object-src 'self'";

/**
 * `GET /knowledge-bases/{id}/items/{integrationId}/{externalId}/original`: an item's file as it
 * was uploaded, for any signed-in user, to open the cited document at the cited page.
 */
export const itemOriginalRoutes: FastifyPluginAsyncZod<Pick<Services, 'reader' | 'originals'>> = async (app, { reader, originals }) => {
  app.get(
    '/knowledge-bases/:knowledgeBaseId/items/:integrationId/:externalId/original',
    { config: { admin: 'member' }, schema: { params: itemIdentitySchema } },
    async (request, reply) => {
      const row = reader.get(request.params);
      if (!row) throw new ApiError('not_found', `No indexed item "${request.params.externalId}" from "${request.params.integrationId}".`);
      const original = originalOf(row, originals);
      if (!original) {
        throw new ApiError('not_found', row.originalSha256 ? 'The uploaded file of this item is no longer kept.' : 'This item was not made from an uploaded file.');
      }
      return reply
        .type(original.contentType)
        .header('content-length', original.bytes)
        .header('content-disposition', inlineDisposition(original.fileName))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', ORIGINAL_CSP)
        .header('cross-origin-resource-policy', 'same-origin')
        .send(fs.createReadStream(originals.pathOf(original.sha256)));
    },
  );
};
