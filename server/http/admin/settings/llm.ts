import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { safeText } from '../../../../common/contract/text-rules.ts';
import { MODEL_NOT_USED } from '../../../retrieval/answer/assistant.ts';
import { endpointProblem } from '../../../retrieval/answer/openai-client.ts';
import type { Services } from '../../../services.ts';
import { ApiError } from '../../edge/api-error.ts';

const llmSettingsSchema = z.strictObject({
  baseUrl: safeText(2_048).trim().nullable(),
  model: safeText(200).trim().nullable(),
  /** Omitted keeps the stored key; null or "" removes it. */
  apiKey: safeText(1_000).nullable().optional(),
  timeoutMs: z.number().int().min(100).max(600_000).optional(),
});

/** `/settings/llm`: the language model endpoint the assistant may ask. */
export const llmSettingsRoutes: FastifyPluginAsyncZod<Pick<Services, 'llmSettings'>> = async (app, { llmSettings }) => {
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
