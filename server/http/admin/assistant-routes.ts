import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { askRequestSchema } from '../../../common/contract/ask.ts';
import { knowledgeBaseParamsSchema } from '../../../common/contract/knowledge.ts';
import { safeText } from '../../../common/contract/text-rules.ts';
import { usageQuerySchema } from '../../../common/contract/usage.ts';
import { type Assistant, MODEL_NOT_USED } from '../../retrieval/answer/assistant.ts';
import type { LlmSettings } from '../../retrieval/answer/llm-settings.ts';
import { endpointProblem } from '../../retrieval/answer/openai-client.ts';
import type { UsageRepo } from '../../storage/usage-repo.ts';
import { ApiError } from '../api-error.ts';
import { answerQuestion } from '../ask-stream.ts';
import { isoTime } from '../iso-time.ts';
import { isoSeries, usageRange } from '../usage-query.ts';
import { type VisitorUsageDeps, visitorUsage } from '../visitor-usage.ts';
import type { VisitorConversations } from '../../domain/visitor-conversations.ts';

export type AssistantAdminOptions = { assistant: Assistant; usage: UsageRepo; llmSettings: LlmSettings } & Pick<VisitorUsageDeps, 'visitorAnalytics'> & {
  visitorConversations: VisitorConversations;
};

const llmSettingsSchema = z.strictObject({
  baseUrl: safeText(2_048).trim().nullable(),
  model: safeText(200).trim().nullable(),
  /** Omitted keeps the stored key; null or "" removes it. */
  apiKey: safeText(1_000).nullable().optional(),
  timeoutMs: z.number().int().min(100).max(600_000).optional(),
});

/**
 * The dashboard's chat, usage charts and language model settings. The chat calls the same
 * assistant as `POST /knowledge-bases/{id}/ask`, with the session instead of an API key.
 */
export const assistantAdminRoutes: FastifyPluginAsyncZod<AssistantAdminOptions> = async (app, { assistant, usage, llmSettings, visitorAnalytics, visitorConversations }) => {
  app.post(
    '/knowledge-bases/:knowledgeBaseId/ask',
    { config: { admin: 'member' }, schema: { params: knowledgeBaseParamsSchema, body: askRequestSchema } },
    async (request, reply) => {
      const { knowledgeBaseId } = request.params;
      return answerQuestion(request, reply, { assistant, usage }, knowledgeBaseId, request.body, null);
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
