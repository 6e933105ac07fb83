import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type AskEvent, askRequestSchema } from '../../contract/ask.ts';
import { identifier, safeText } from '../../contract/text-rules.ts';
import { usageQuerySchema } from '../../contract/usage.ts';
import type { Assistant } from '../../retrieval/answer/assistant.ts';
import type { LlmSettings } from '../../retrieval/answer/llm-settings.ts';
import { BUCKET_MS, type UsageRepo, type UsageTotals } from '../../storage/usage-repo.ts';
import { ApiError } from '../api-error.ts';
import { openEventStream } from '../sse.ts';

export type AssistantAdminOptions = { assistant: Assistant; usage: UsageRepo; llmSettings: LlmSettings };

const MAX_BUCKETS = 2_200;
const DEFAULT_SPAN = { hour: 48, day: 30 } as const;

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
export const assistantAdminRoutes: FastifyPluginAsyncZod<AssistantAdminOptions> = async (app, { assistant, usage, llmSettings }) => {
  app.post(
    '/knowledge-bases/:knowledgeBaseId/ask',
    { config: { admin: 'member' }, schema: { params: z.strictObject({ knowledgeBaseId: identifier() }), body: askRequestSchema } },
    async (request, reply) => {
      const { knowledgeBaseId } = request.params;
      const who = { keyId: null, knowledgeBaseId };
      const count = (tookMs: number) => {
        usage.count('questions', who);
        usage.answerLatency(tookMs, who);
      };
      if (!request.body.stream) {
        const controller = new AbortController();
        const onClose = () => {
          if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
        };
        reply.raw.once('close', onClose);
        try {
          const result = await assistant.ask(knowledgeBaseId, request.body, { signal: controller.signal });
          count(result.tookMs);
          return result;
        } finally {
          reply.raw.off('close', onClose);
        }
      }
      const stream = openEventStream(request, reply);
      const onEvent = (event: AskEvent) => {
        const { type, ...data } = event;
        stream.send(type, type === 'done' ? event.response : type === 'answer' ? { text: event.text } : data);
      };
      try {
        const result = await assistant.ask(knowledgeBaseId, request.body, { signal: stream.signal, onEvent });
        count(result.tookMs);
      } catch (error) {
        if (!stream.signal.aborted) {
          request.log.error({ err: error, requestId: request.id }, 'answer failed');
          stream.send('error', { code: 'internal_error', message: 'The answer could not be completed.', requestId: request.id });
        }
      } finally {
        stream.end();
      }
    },
  );

  /** The same report as `GET /usage`, for every key and knowledge base. */
  app.get('/usage', { config: { admin: 'member' }, schema: { querystring: usageQuerySchema } }, async (request) => {
    const { granularity, keyId, knowledgeBaseId } = request.query;
    const size = BUCKET_MS[granularity];
    const to = request.query.to ? Date.parse(request.query.to) : Math.ceil((Date.now() + 1) / size) * size;
    const from = request.query.from ? Date.parse(request.query.from) : to - DEFAULT_SPAN[granularity] * size;
    if (from >= to) throw new ApiError('invalid_query', '`from` must be before `to`.', [{ path: 'from', message: 'must be before to' }]);
    if ((to - from) / size > MAX_BUCKETS) {
      throw new ApiError('invalid_query', `At most ${MAX_BUCKETS} ${granularity} buckets per request.`, [
        { path: 'granularity', message: 'too many buckets for this range' },
      ]);
    }
    const report = usage.query({ from, to, granularity, keyId, knowledgeBaseId });
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      from: iso(from),
      to: iso(to),
      granularity,
      series: report.series.map(({ start, ...totals }) => ({ start: iso(start), ...(totals as UsageTotals) })),
      totals: report.totals,
      byKey: report.byKey,
      byKnowledgeBase: report.byKnowledgeBase,
    };
  });

  app.get('/settings/llm', { config: { admin: 'member' } }, async () => llmSettings.get());

  app.put('/settings/llm', { config: { admin: 'manager' }, schema: { body: llmSettingsSchema } }, async (request) => {
    const body = request.body;
    try {
      llmSettings.set({
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
    return llmSettings.get();
  });
};
