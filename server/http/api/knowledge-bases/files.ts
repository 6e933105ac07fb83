import fastifyMultipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SUPPORTED_FILE_EXTENSIONS } from '../../../../common/contract/files.ts';
import { bulkAckSchema } from '../../../../common/contract/ingest.ts';
import { knowledgeBaseParamsSchema } from '../../../../common/contract/knowledge.ts';
import { assertKnowledgeBaseAccess } from '../../edge/api-key-auth.ts';
import { type FileUploadDeps, receiveFileUpload } from '../../edge/file-upload.ts';
import { apiKeySecurity, bodyErrorResponses } from '../../edge/route-schemas.ts';


/**
 * `POST /knowledge-bases/{id}/files`: documents as multipart/form-data, each kept as an original
 * and pushed as one item through the usual queue (edge/file-upload.ts reads the form, use-cases/uploaded-files.ts keeps the files); the pipeline
 * workers extract it. Answers as `POST /ingest/bulk`.
 */
export const fileRoutes: FastifyPluginAsyncZod<FileUploadDeps> = async (app, deps) => {
  // Registered here, so only this route reads multipart bodies (the rest of the API takes JSON).
  await app.register(fastifyMultipart);
  const { limits } = deps;

  app.post(
    '/knowledge-bases/:knowledgeBaseId/files',
    {
      config: { scope: 'iq:import' },
      schema: {
        tags: ['ingestion'],
        summary: 'Upload files',
        description:
          `Takes documents (${SUPPORTED_FILE_EXTENSIONS.join(', ')}) as multipart/form-data, one or more parts named \`file\`; ` +
          'optional fields `integrationId` (default `files`), `sourceType` (default `PAGE`), `priority`, and an `externalId` field before a file part ' +
          `to name that file (default: its file name). Each file becomes one item. At most ${limits.filesPerRequest} files, ` +
          `${limits.fileBytes} bytes each and ${limits.requestBytes} bytes together. Answers as POST /ingest/bulk.`,
        security: apiKeySecurity,
        consumes: ['multipart/form-data'],
        params: knowledgeBaseParamsSchema,
        response: { 200: bulkAckSchema, ...bodyErrorResponses },
      },
    },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      assertKnowledgeBaseAccess(request, [knowledgeBaseId]);
      return receiveFileUpload(request, knowledgeBaseId, request.apiKey!.id, deps);
    },
  );
};
