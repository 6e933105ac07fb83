import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ALSO_ASKED_LIMIT,
  type CuratedAnswerList,
  curatedAlsoAskedInputSchema,
  curatedAnswerInputSchema,
  curatedAnswerParamsSchema,
  curatedAnswerPatchSchema,
  type CuratedAnswerView,
} from '../../../../common/contract/curated-answers.ts';
import { knowledgeBaseParamsSchema } from '../../../../common/contract/knowledge.ts';
import type { CuratedAnswerRecord } from '../../../domain/curated-answers.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../edge/api-error.ts';
import { isoTime } from '../../edge/iso-time.ts';
import { assertKnowledgeBaseExists } from '../../edge/known-knowledge-base.ts';

function curatedAnswerView(record: CuratedAnswerRecord): CuratedAnswerView {
  return {
    id: record.id,
    knowledgeBaseId: record.knowledgeBaseId,
    question: record.question,
    answer: record.answer,
    alsoAsked: record.alsoAsked,
    createdAt: isoTime(record.createdAt),
    updatedAt: isoTime(record.updatedAt),
  };
}

/**
 * `/knowledge-bases/{id}/answers`: the owner's curated answers of a knowledge base: Members read them, the Owner and Admins write
 * them (the gate and CSRF of every admin route, admin-auth.ts).
 */
export const curatedAnswerRoutes: FastifyPluginAsyncZod<Pick<Services, 'curatedAnswers' | 'reader'>> = async (app, { curatedAnswers, reader }) => {
  const notFound = (knowledgeBaseId: string, id: number) => new ApiError('not_found', `No curated answer ${id} in knowledge base "${knowledgeBaseId}".`);

  app.get(
    '/knowledge-bases/:knowledgeBaseId/answers',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema } },
    async (request): Promise<CuratedAnswerList> => {
      assertKnowledgeBaseExists(reader, request.params.knowledgeBaseId);
      return { data: curatedAnswers.list(request.params.knowledgeBaseId).map(curatedAnswerView) };
    },
  );

  app.post(
    '/knowledge-bases/:knowledgeBaseId/answers',
    { config: { admin: 'manager' }, schema: { params: knowledgeBaseParamsSchema, body: curatedAnswerInputSchema } },
    async (request, reply): Promise<CuratedAnswerView> => {
      assertKnowledgeBaseExists(reader, request.params.knowledgeBaseId);
      reply.code(201);
      return curatedAnswerView(curatedAnswers.create(request.params.knowledgeBaseId, request.body));
    },
  );

  app.get(
    '/knowledge-bases/:knowledgeBaseId/answers/:answerId',
    { config: { admin: 'member' }, schema: { params: curatedAnswerParamsSchema } },
    async (request): Promise<CuratedAnswerView> => {
      const { knowledgeBaseId, answerId } = request.params;
      const record = curatedAnswers.get(knowledgeBaseId, answerId);
      if (!record) throw notFound(knowledgeBaseId, answerId);
      return curatedAnswerView(record);
    },
  );

  // PUT replaces the answer (alsoAsked left out is emptied); PATCH changes only the fields sent.
  for (const [method, body] of [
    ['put', curatedAnswerInputSchema],
    ['patch', curatedAnswerPatchSchema],
  ] as const) {
    app[method](
      '/knowledge-bases/:knowledgeBaseId/answers/:answerId',
      { config: { admin: 'manager' }, schema: { params: curatedAnswerParamsSchema, body: body as z.ZodType<z.infer<typeof curatedAnswerPatchSchema>> } },
      async (request): Promise<CuratedAnswerView> => {
        const { knowledgeBaseId, answerId } = request.params;
        const record = curatedAnswers.update(knowledgeBaseId, answerId, request.body);
        if (!record) throw notFound(knowledgeBaseId, answerId);
        return curatedAnswerView(record);
      },
    );
  }

  // Learning from use: the owner confirms a visitor's wording for this answer (curated-answers.ts).
  app.post(
    '/knowledge-bases/:knowledgeBaseId/answers/:answerId/also-asked',
    { config: { admin: 'manager' }, schema: { params: curatedAnswerParamsSchema, body: curatedAlsoAskedInputSchema } },
    async (request): Promise<CuratedAnswerView> => {
      const { knowledgeBaseId, answerId } = request.params;
      const record = curatedAnswers.addAlsoAsked(knowledgeBaseId, answerId, request.body.question);
      if (!record) throw notFound(knowledgeBaseId, answerId);
      if (record === 'full') throw new ApiError('conflict', `Curated answer ${answerId} already has ${ALSO_ASKED_LIMIT} other wordings; remove one first.`);
      return curatedAnswerView(record);
    },
  );

  app.delete(
    '/knowledge-bases/:knowledgeBaseId/answers/:answerId',
    { config: { admin: 'manager' }, schema: { params: curatedAnswerParamsSchema } },
    async (request, reply) => {
      const { knowledgeBaseId, answerId } = request.params;
      if (!curatedAnswers.delete(knowledgeBaseId, answerId)) throw notFound(knowledgeBaseId, answerId);
      reply.code(204);
    },
  );
};
