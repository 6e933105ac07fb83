import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type AdminContentGap,
  type AdminContentGapReport,
  contentGapQuerySchema,
  DASHBOARD_INTEGRATION,
  type NearestItem,
  writeAnswerSchema,
  type WriteAnswerResult,
} from '../../../common/contract/content-gaps.ts';
import type { ContentGapFilter, ContentGapRow, QuestionGroupStore } from '../../domain/content-gaps.ts';
import type { JobQueue } from '../../domain/job-queue.ts';
import type { CuratedAnswers } from '../../retrieval/curated/curated-answers.ts';
import type { QuestionGrouper } from '../../retrieval/question-groups.ts';
import type { SearchService } from '../../retrieval/search.ts';
import { ApiError } from '../edge/api-error.ts';
import { isoTime } from '../edge/iso-time.ts';

export type ContentGapRoutesOptions = {
  questionGroups: QuestionGroupStore;
  questionGrouper: QuestionGrouper;
  search: SearchService;
  queue: JobQueue;
  curatedAnswers: CuratedAnswers;
};

/** Questions grouped on the spot before a report; the background pass takes the rest. */
const CATCH_UP_BEFORE_REPORT = 256;
const EXAMPLES_PER_GROUP = 5;
const NEAREST_ITEMS = 3;
/** The longest content also given as a curated answer (curatedAnswerInputSchema's answer). */
const CURATED_ANSWER_MAX = 8_000;

const groupParamsSchema = z.strictObject({ groupId: z.coerce.number().int().min(1) });

/**
 * Content gaps for the owner: Members read the report, the Owner and Admins write answers. An
 * answer is an item (sourceType PAGE, integration `dashboard`, the group's knowledge base) pushed
 * through the same queue as `POST /ingest`, so it is processed, searched and cited like any other.
 * It is also the group's curated answer (question: the group's label, also asked: its wordings), so
 * those wordings get it as written, before retrieval (docs/content-gaps.md, "Writing the answer").
 */
export const contentGapRoutes: FastifyPluginAsyncZod<ContentGapRoutesOptions> = async (app, { questionGroups, questionGrouper, search, queue, curatedAnswers }) => {
  const nearest = async (row: ContentGapRow): Promise<NearestItem[]> => {
    const outcome = await search.search(row.knowledgeBaseId, row.label, { mode: 'hybrid', topK: NEAREST_ITEMS, sourceTypes: null, passages: 1 });
    return outcome.hits.map((hit) => ({
      integrationId: hit.item.integration_id,
      externalId: hit.item.external_id,
      title: hit.item.title,
      url: hit.item.url,
      score: Math.round(hit.score * 1000) / 1000,
    }));
  };
  const view = async (row: ContentGapRow, examples: Array<{ question: string; asked: number }>): Promise<AdminContentGap> => {
    const [integrationId, ...rest] = row.answeredItem?.split('/') ?? [];
    return {
      id: row.groupId,
      knowledgeBaseId: row.knowledgeBaseId,
      label: row.label,
      asked: row.asked,
      visitors: row.visitors,
      abstained: row.abstained,
      thumbsDown: row.thumbsDown,
      lastAskedAt: isoTime(row.lastAskedAt),
      examples,
      nearestItems: await nearest(row),
      answeredAt: row.answeredAt === null ? null : isoTime(row.answeredAt),
      answeredItem: integrationId ? { integrationId, externalId: rest.join('/') } : null,
      askedSinceAnswer: row.askedSinceAnswer,
    };
  };
  const report = async (filter: ContentGapFilter, limit: number): Promise<AdminContentGap[]> => {
    const rows = questionGroups.gaps(filter, limit);
    const examples = questionGroups.examples(rows.map((r) => r.groupId), EXAMPLES_PER_GROUP);
    return Promise.all(rows.map((row) => view(row, examples.get(row.groupId) ?? [])));
  };

  app.get('/content-gaps', { config: { admin: 'member' }, schema: { querystring: contentGapQuerySchema } }, async (request): Promise<AdminContentGapReport> => {
    const { limit, status, widgetId, knowledgeBaseId } = request.query;
    const from = request.query.from === undefined ? undefined : Date.parse(request.query.from);
    const to = request.query.to === undefined ? undefined : Date.parse(request.query.to);
    if (from !== undefined && to !== undefined && from >= to) {
      throw new ApiError('invalid_query', '`from` must be before `to`.', [{ path: 'from', message: 'must be before to' }]);
    }
    await questionGrouper.catchUp(CATCH_UP_BEFORE_REPORT).catch((error: unknown) => {
      // The report still shows what is grouped; the pass tries again in the background.
      request.log.warn({ err: error, requestId: request.id }, 'grouping visitor questions failed');
    });
    return { data: await report({ widgetId, knowledgeBaseId, from, to, status }, limit), pending: questionGrouper.pending() };
  });

  app.post(
    '/content-gaps/:groupId/answer',
    { config: { admin: 'manager' }, schema: { params: groupParamsSchema, body: writeAnswerSchema } },
    async (request, reply): Promise<WriteAnswerResult> => {
      const { groupId } = request.params;
      const group = questionGroups.group(groupId);
      if (!group) throw new ApiError('not_found', `No question group ${groupId}.`);
      const { title, content, url } = request.body;
      const externalId = request.body.externalId ?? `answer-${groupId}`;
      const pushed = await queue.push(
        [
          {
            integrationId: DASHBOARD_INTEGRATION,
            knowledgeBaseId: group.knowledgeBaseId,
            sourceType: 'PAGE',
            externalId,
            data: { title, content, ...(url ? { url } : {}) },
          },
        ],
        null,
      );
      questionGroups.markAnswered(groupId, `${DASHBOARD_INTEGRATION}/${externalId}`, Date.now());
      const curated = curatedAnswerOfGroup(curatedAnswers, group.knowledgeBaseId, group.label, questionGroups.examples([groupId], EXAMPLES_PER_GROUP).get(groupId) ?? [], content);
      const [row] = questionGroups.gaps({ status: 'all', groupId }, 1);
      reply.code(202);
      return {
        jobId: pushed.jobIds[0]!,
        knowledgeBaseId: group.knowledgeBaseId,
        integrationId: DASHBOARD_INTEGRATION,
        externalId,
        group: row ? await view(row, questionGroups.examples([groupId], EXAMPLES_PER_GROUP).get(groupId) ?? []) : null,
        curatedAnswerId: curated?.id ?? null,
      };
    },
  );
};

/**
 * The group's curated answer: the one already asked by the group's label is replaced (writing the
 * answer again edits it), else one is made. Content too long to be given as one answer stays an
 * item only.
 */
function curatedAnswerOfGroup(curatedAnswers: CuratedAnswers, knowledgeBaseId: string, label: string, examples: Array<{ question: string }>, content: string) {
  const answer = content.trim();
  if (answer.length === 0 || answer.length > CURATED_ANSWER_MAX) return null;
  const question = label.trim().slice(0, 500);
  const alsoAsked = examples.map((e) => e.question.trim().slice(0, 500)).filter((q) => q.length > 0 && q !== question);
  const existing = curatedAnswers.list(knowledgeBaseId).find((a) => a.question === question);
  return existing ? curatedAnswers.update(knowledgeBaseId, existing.id, { answer, alsoAsked: [...new Set([...existing.alsoAsked, ...alsoAsked])].slice(0, 50) }) : curatedAnswers.create(knowledgeBaseId, { question, answer, alsoAsked });
}
