import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { knowledgeBaseParamsSchema, type KnowledgeBaseSettingsView, knowledgeBaseSettingsUpdateSchema } from '../../../../common/contract/knowledge.ts';
import type { SearchService } from '../../../retrieval/search.ts';
import type { Services } from '../../../services.ts';
import { assertKnowledgeBaseExists } from '../../edge/known-knowledge-base.ts';

/** The settings and where the keyword index they chose is (a re-index to another language shows its progress). */
function settingsView(search: SearchService, knowledgeBaseId: string): KnowledgeBaseSettingsView {
  return { ...search.knowledgeBaseSettings(knowledgeBaseId), keywordIndex: search.keywordIndex(knowledgeBaseId) };
}

/** `/knowledge-bases/{id}/settings`: Members read them, the Owner and Admins change them. */
export const knowledgeBaseSettingsRoutes: FastifyPluginAsyncZod<Pick<Services, 'reader' | 'search'>> = async (app, { reader, search }) => {
  /** A knowledge base's search settings (docs/retrieval.md: typo tolerance, languages) and its keyword index's state. */
  app.get(
    '/knowledge-bases/:knowledgeBaseId/settings',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema } },
    async (request) => {
      assertKnowledgeBaseExists(reader, request.params.knowledgeBaseId);
      return settingsView(search, request.params.knowledgeBaseId);
    },
  );

  app.patch(
    '/knowledge-bases/:knowledgeBaseId/settings',
    { config: { admin: 'manager' }, schema: { params: knowledgeBaseParamsSchema, body: knowledgeBaseSettingsUpdateSchema } },
    async (request) => {
      assertKnowledgeBaseExists(reader, request.params.knowledgeBaseId);
      search.updateKnowledgeBaseSettings(request.params.knowledgeBaseId, request.body);
      return settingsView(search, request.params.knowledgeBaseId);
    },
  );
};
