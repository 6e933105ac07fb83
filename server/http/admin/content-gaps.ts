import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type AdminContentGap, type AdminContentGapReport, contentGapQuerySchema, type LinkAnswerResult, linkAnswerSchema, writeAnswerSchema, type WriteAnswerResult } from '../../../common/contract/content-gaps.ts';
import { ALSO_ASKED_LIMIT } from '../../../common/contract/curated-answers.ts';
import type { Services } from '../../services.ts';
import { type ContentGap, ContentGaps, LINKED_ANSWER } from '../../use-cases/content-gaps.ts';
import { ApiError } from '../edge/api-error.ts';
import { isoTime } from '../edge/iso-time.ts';

export type ContentGapRoutesOptions = Pick<Services, 'questionGroups' | 'questionGrouper' | 'search' | 'queue' | 'curatedAnswers'>;

const groupParamsSchema = z.strictObject({ groupId: z.coerce.number().int().min(1) });

function gapView(gap: ContentGap): AdminContentGap {
  const linked = gap.answeredItem?.startsWith(LINKED_ANSWER) ? Number(gap.answeredItem.slice(LINKED_ANSWER.length)) : null;
  const [integrationId, ...rest] = linked === null ? (gap.answeredItem?.split('/') ?? []) : [];
  return {
    id: gap.groupId,
    knowledgeBaseId: gap.knowledgeBaseId,
    label: gap.label,
    asked: gap.asked,
    visitors: gap.visitors,
    abstained: gap.abstained,
    thumbsDown: gap.thumbsDown,
    lastAskedAt: isoTime(gap.lastAskedAt),
    examples: gap.examples,
    nearestItems: gap.nearestItems,
    answeredAt: gap.answeredAt === null ? null : isoTime(gap.answeredAt),
    answeredItem: integrationId ? { integrationId, externalId: rest.join('/') } : null,
    linkedAnswerId: linked,
    askedSinceAnswer: gap.askedSinceAnswer,
  };
}

/**
 * `/content-gaps`: Members read the report, the Owner and Admins write answers (what an answer
 * becomes is the use case's: use-cases/content-gaps.ts).
 */
export const contentGapRoutes: FastifyPluginAsyncZod<ContentGapRoutesOptions> = async (app, deps) => {
  const contentGaps = new ContentGaps(deps);

  app.get('/content-gaps', { config: { admin: 'member' }, schema: { querystring: contentGapQuerySchema } }, async (request): Promise<AdminContentGapReport> => {
    const { limit, status, widgetId, knowledgeBaseId } = request.query;
    const from = request.query.from === undefined ? undefined : Date.parse(request.query.from);
    const to = request.query.to === undefined ? undefined : Date.parse(request.query.to);
    if (from !== undefined && to !== undefined && from >= to) {
      throw new ApiError('invalid_query', '`from` must be before `to`.', [{ path: 'from', message: 'must be before to' }]);
    }
    const report = await contentGaps.report({ widgetId, knowledgeBaseId, from, to, status }, limit, (error) => {
      // The report still shows what is grouped; the pass tries again in the background.
      request.log.warn({ err: error, requestId: request.id }, 'grouping visitor questions failed');
    });
    return { data: report.gaps.map(gapView), pending: report.pending };
  });

  app.post(
    '/content-gaps/:groupId/answer',
    { config: { admin: 'manager' }, schema: { params: groupParamsSchema, body: writeAnswerSchema } },
    async (request, reply): Promise<WriteAnswerResult> => {
      const { groupId } = request.params;
      const written = await contentGaps.writeAnswer(groupId, request.body);
      if (!written) throw new ApiError('not_found', `No question group ${groupId}.`);
      reply.code(202);
      return { ...written, group: written.group && gapView(written.group) };
    },
  );

  // "Answered by one of your answers": the group's wordings join a curated answer's alsoAsked.
  app.post(
    '/content-gaps/:groupId/linked-answer',
    { config: { admin: 'manager' }, schema: { params: groupParamsSchema, body: linkAnswerSchema } },
    async (request): Promise<LinkAnswerResult> => {
      const { groupId } = request.params;
      const { curatedAnswerId } = request.body;
      const linked = await contentGaps.linkAnswer(groupId, curatedAnswerId);
      if (!linked) throw new ApiError('not_found', `No question group ${groupId}.`);
      if (linked === 'no_answer') throw new ApiError('not_found', `No curated answer ${curatedAnswerId} in the question group's knowledge base.`);
      if (linked === 'full') throw new ApiError('conflict', `Curated answer ${curatedAnswerId} cannot take this group's wordings: it would have more than ${ALSO_ASKED_LIMIT} other wordings; remove some first.`);
      return { ...linked, group: linked.group && gapView(linked.group) };
    },
  );
};
