import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { dashboardAskRequestSchema, dashboardFeedbackSchema } from '../../../common/contract/conversations.ts';
import { knowledgeBaseParamsSchema } from '../../../common/contract/knowledge.ts';
import { safeText } from '../../../common/contract/text-rules.ts';
import { usageQuerySchema } from '../../../common/contract/usage.ts';
import type { AskQuestion } from '../../retrieval/answer/ask-question.ts';
import { MODEL_NOT_USED } from '../../retrieval/answer/assistant.ts';
import type { LlmSettings } from '../../retrieval/answer/llm-settings.ts';
import { endpointProblem } from '../../retrieval/answer/openai-client.ts';
import type { UsageRepo } from '../../storage/usage-repo.ts';
import { ApiError } from '../edge/api-error.ts';
import { answerQuestion } from '../edge/ask-stream.ts';
import { isoTime } from '../edge/iso-time.ts';
import { isoSeries, usageRange } from '../edge/usage-range.ts';
import { type VisitorUsageDeps, visitorUsage } from '../visitor-usage.ts';
import type { VisitorConversations } from '../../domain/visitor-conversations.ts';
import type { DashboardConversations } from '../../domain/dashboard-conversations.ts';
import { sessionOf } from '../edge/admin-auth.ts';

export type AssistantAdminOptions = { askQuestion: AskQuestion; usage: UsageRepo; llmSettings: LlmSettings } & Pick<VisitorUsageDeps, 'visitorAnalytics'> & {
  visitorConversations: VisitorConversations;
  dashboardConversations: DashboardConversations;
};

const feedbackParamsSchema = z.strictObject({ conversationId: z.string().min(1).max(64), answerId: z.string().min(1).max(64) });

const llmSettingsSchema = z.strictObject({
  baseUrl: safeText(2_048).trim().nullable(),
  model: safeText(200).trim().nullable(),
  /** Omitted keeps the stored key; null or "" removes it. */
  apiKey: safeText(1_000).nullable().optional(),
  timeoutMs: z.number().int().min(100).max(600_000).optional(),
});

/**
 * The dashboard's chat, usage charts and language model settings. The chat calls the same
 * assistant as `POST /knowledge-bases/{id}/ask`, with the session instead of an API key, and
 * keeps each answer in the user's dashboard conversation (listed on the Conversations screen).
 */
export const assistantAdminRoutes: FastifyPluginAsyncZod<AssistantAdminOptions> = async (
  app,
  { askQuestion, usage, llmSettings, visitorAnalytics, visitorConversations, dashboardConversations },
) => {
  app.post(
    '/knowledge-bases/:knowledgeBaseId/ask',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema, body: dashboardAskRequestSchema } },
    async (request, reply) => {
      const { knowledgeBaseId } = request.params;
      const { conversationId, ...question } = request.body;
      const { user } = sessionOf(request);
      const asker = { kind: 'dashboard' as const, user: { id: user.id, name: user.username }, conversationId: conversationId ?? null };
      return answerQuestion(request, reply, askQuestion, knowledgeBaseId, question, asker, ({ recorded }) => recorded);
    },
  );

  /** Thumbs up or down in the dashboard's chat, on an answer of the user's own conversation. */
  app.put(
    '/conversations/:conversationId/answers/:answerId/feedback',
    { config: { admin: 'member' }, schema: { params: feedbackParamsSchema, body: dashboardFeedbackSchema } },
    async (request, reply) => {
      const { conversationId, answerId } = request.params;
      if (!dashboardConversations.rate(sessionOf(request).user.id, conversationId, answerId, request.body.rating)) {
        throw new ApiError('not_found', `No answer "${answerId}" in a conversation of yours.`);
      }
      return reply.code(204).send();
    },
  );

  /** The same report as `GET /usage`, for every key and knowledge base, with the visitors' (whatever the key filter). */
  app.get('/usage', { config: { admin: 'member' }, schema: { querystring: usageQuerySchema } }, async (request) => {
    const { granularity, keyId, knowledgeBaseId, widgetId } = request.query;
    const { from, to, size } = usageRange(request.query);
    const report = usage.query({ from, to, granularity, keyId, knowledgeBaseId });
    return {
      from: isoTime(from),
      to: isoTime(to),
      granularity,
      series: isoSeries(report.series),
      totals: report.totals,
      byKey: report.byKey,
      byKnowledgeBase: report.byKnowledgeBase,
      visitors: visitorUsage({ visitors: visitorConversations, visitorAnalytics }, { from, to, size, widgetId, knowledgeBaseId }),
    };
  });

  app.get('/settings/llm', { config: { admin: 'member' } }, async () => llmSettings.get());

  /**
   * Saves the settings, then tries the endpoint once so the form can say whether it works. As with
   * answers, only the Owner reads why it does not; an Admin reads that it could not be used.
   */
  app.put('/settings/llm', { config: { admin: 'manager' }, schema: { body: llmSettingsSchema } }, async (request) => {
    const body = request.body;
    let saved: { apiKeyRemoved: boolean };
    try {
      saved = llmSettings.set({
        baseUrl: body.baseUrl || null,
        model: body.model || null,
        ...(body.apiKey !== undefined ? { apiKey: body.apiKey } : {}),
        ...(body.timeoutMs !== undefined ? { timeoutMs: body.timeoutMs } : {}),
      });
    } catch (error) {
      if (error instanceof RangeError || error instanceof TypeError) {
        throw new ApiError('invalid_body', error.message.includes('URL') || error instanceof TypeError ? 'The base URL is not a valid http(s) URL.' : error.message, [
          { path: 'baseUrl', message: error.message },
        ]);
      }
      throw error;
    }
    const endpoint = llmSettings.endpoint();
    const problem = endpoint ? await endpointProblem(endpoint) : null;
    if (problem) request.log.warn({ requestId: request.id, reason: problem }, 'the language model endpoint did not work when its settings were saved');
    const shown = request.adminSession?.user.role === 'owner' ? problem : MODEL_NOT_USED;
    return {
      ...llmSettings.get(),
      apiKeyRemoved: saved.apiKeyRemoved,
      test: endpoint ? { ok: problem === null, message: problem === null ? 'The endpoint answered.' : `${shown}.` } : null,
    };
  });
};
