import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { knowledgeBaseParamsSchema } from '../../../../common/contract/knowledge.ts';
import { type FileUploadDeps, receiveFileUpload } from '../../edge/file-upload.ts';

export type FileAdminOptions = Omit<FileUploadDeps, 'limits'> & { fileLimits: FileUploadDeps['limits'] };

/**
 * `POST /knowledge-bases/{id}/files`: the dashboard's upload with the signed-in Owner's or Admin's
 * session, the very code of the API's `POST /knowledge-bases/{id}/files` (edge/file-upload.ts).
 */
export const fileAdminRoutes: FastifyPluginAsyncZod<FileAdminOptions> = async (app, { queue, originals, db, fileLimits }) => {
  await app.register(fastifyMultipart);

  app.post(
    '/knowledge-bases/:knowledgeBaseId/files',
    { config: { admin: 'manager' }, schema: { params: knowledgeBaseParamsSchema } },
    async (request) => receiveFileUpload(request, request.params.knowledgeBaseId, null, { queue, originals, db, limits: fileLimits }),
  );
};
