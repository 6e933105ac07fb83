import fs from 'node:fs';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { itemIdentitySchema } from '../../../common/contract/admin.ts';
import { knowledgeBaseParamsSchema } from '../../../common/contract/knowledge.ts';
import { describeOriginal, inlineDisposition, type OriginalFile } from '../../domain/original-file.ts';
import type { ItemReadRepo, ItemRow } from '../../storage/item-read-repo.ts';
import type { Originals } from '../../storage/originals.ts';
import { ApiError } from '../edge/api-error.ts';
import { type FileUploadDeps, receiveFileUpload } from '../file-upload.ts';

export type FileAdminOptions = Omit<FileUploadDeps, 'limits'> & { reader: ItemReadRepo; fileLimits: FileUploadDeps['limits'] };

/**
 * What a served original may do in the browser: nothing. `sandbox` gives the response an opaque
 * origin with no scripts, forms, or popups, so an uploaded HTML page cannot act as the dashboard;
 * it may show its own styles and images.
 */
const ORIGINAL_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; object-src 'self'";

/** An indexed item's original, described; null when the item did not come from a file or its file is gone. */
export function originalOf(row: Pick<ItemRow, 'original_sha256' | 'external_id' | 'title'>, originals: Originals): (OriginalFile & { sha256: string; bytes: number }) | null {
  const sha256 = row.original_sha256;
  if (!sha256 || !originals.has(sha256)) return null;
  const file = originals.pathOf(sha256);
  const head = Buffer.alloc(1024);
  const fd = fs.openSync(file, 'r');
  try {
    const read = fs.readSync(fd, head, 0, head.length, 0);
    return { ...describeOriginal(head.subarray(0, read), [row.external_id, row.title]), sha256, bytes: fs.fstatSync(fd).size };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The dashboard's files: an upload with the signed-in Owner's or Admin's session (the very code of
 * `POST /knowledge-bases/{id}/files`, server/http/file-upload.ts), and an item's original as it was
 * uploaded, for any signed-in user, to open the cited document at the cited page.
 */
export const fileAdminRoutes: FastifyPluginAsyncZod<FileAdminOptions> = async (app, { queue, originals, db, reader, fileLimits }) => {
  await app.register(fastifyMultipart);

  app.post(
    '/knowledge-bases/:knowledgeBaseId/files',
    { config: { admin: 'manager' }, schema: { params: knowledgeBaseParamsSchema } },
    async (request) => receiveFileUpload(request, request.params.knowledgeBaseId, null, { queue, originals, db, limits: fileLimits }),
  );

  app.get(
    '/knowledge-bases/:knowledgeBaseId/items/:integrationId/:externalId/original',
    { config: { admin: 'member' }, schema: { params: itemIdentitySchema } },
    async (request, reply) => {
      const row = reader.get(request.params);
      if (!row) throw new ApiError('not_found', `No indexed item "${request.params.externalId}" from "${request.params.integrationId}".`);
      const original = originalOf(row, originals);
      if (!original) {
        throw new ApiError('not_found', row.original_sha256 ? 'The uploaded file of this item is no longer kept.' : 'This item was not made from an uploaded file.');
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
