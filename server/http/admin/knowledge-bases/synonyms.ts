import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { knowledgeBaseParamsSchema } from '../../../../common/contract/knowledge.ts';
import { synonymsSchema, synonymsUpdateSchema } from '../../../../common/contract/synonyms.ts';
import type { Services } from '../../../services.ts';
import { assertKnowledgeBaseExists } from '../../edge/known-knowledge-base.ts';

/** `/knowledge-bases/{id}/synonyms`: Members read them, the Owner and Admins replace or clear them. */
export const synonymRoutes: FastifyPluginAsyncZod<Pick<Services, 'reader' | 'search'>> = async (app, { reader, search }) => {
  /** A knowledge base's synonym sets (docs/retrieval.md: synonyms), applied from the next query on. */
  app.get(
    '/knowledge-bases/:knowledgeBaseId/synonyms',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema, response: { 200: synonymsSchema } } },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      assertKnowledgeBaseExists(reader, knowledgeBaseId);
      return { knowledgeBaseId, sets: search.synonymSets(knowledgeBaseId) };
    },
  );

  app.put(
    '/knowledge-bases/:knowledgeBaseId/synonyms',
    {
      config: { admin: 'manager' },
      schema: { params: knowledgeBaseParamsSchema, body: synonymsUpdateSchema, response: { 200: synonymsSchema } },
    },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      assertKnowledgeBaseExists(reader, knowledgeBaseId);
      return { knowledgeBaseId, sets: search.replaceSynonyms(knowledgeBaseId, request.body.sets) };
    },
  );

  app.delete(
    '/knowledge-bases/:knowledgeBaseId/synonyms',
    { config: { admin: 'manager' }, schema: { params: knowledgeBaseParamsSchema, response: { 200: synonymsSchema } } },
    async (request) => {
      const { knowledgeBaseId } = request.params;
      assertKnowledgeBaseExists(reader, knowledgeBaseId);
      return { knowledgeBaseId, sets: search.replaceSynonyms(knowledgeBaseId, []) };
    },
  );
};
