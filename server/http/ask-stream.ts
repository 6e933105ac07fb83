import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AskEvent, AskRequest, AskResponse } from '../../common/contract/ask.ts';
import type { Assistant, AskOptions, AskResult } from '../retrieval/answer/assistant.ts';
import type { UsageRepo } from '../storage/usage-repo.ts';
import { openEventStream } from './sse.ts';

/**
 * Answers a question for `POST /knowledge-bases/{id}/ask` and the dashboard's chat alike: as
 * JSON, or streamed when the body asks for it. Counts the question and its latency for `keyId`
 * (null for the dashboard) once the answer is complete. Returns the JSON answer, or nothing when
 * the response was streamed or the client left before the answer was ready.
 *
 * `onAnswer` (the dashboard's chat) hears each complete answer before it is sent, with the time
 * since the request came; what it returns is added to the answer (the `done` event, or the JSON).
 */
export type OnAnswer = (response: AskResponse, elapsedMs: number) => Record<string, unknown>;

export async function answerQuestion(
  request: FastifyRequest,
  reply: FastifyReply,
  { assistant, usage }: { assistant: Assistant; usage: UsageRepo },
  knowledgeBaseId: string,
  body: AskRequest,
  keyId: string | null,
  onAnswer?: OnAnswer,
): Promise<(AskResult & Record<string, unknown>) | undefined> {
  const started = performance.now();
  const who = { keyId, knowledgeBaseId };
  // Keeping the answer must not lose it: a failure to keep it is logged, and the answer still goes out.
  const extra = (response: AskResponse): Record<string, unknown> => {
    if (!onAnswer) return {};
    try {
      return onAnswer(response, Math.round((performance.now() - started) * 10) / 10);
    } catch (error) {
      request.log.error({ err: error, requestId: request.id }, 'the answer could not be kept');
      return {};
    }
  };
  const modelFailure = {
    showModelFailure: request.adminSession?.user.role === 'owner',
    onModelFailure: (reason: string) => request.log.warn({ requestId: request.id, reason }, 'the language model could not be used; answered extractively'),
  };
  const count = (tookMs: number) => {
    usage.count('questions', who);
    usage.answerLatency(tookMs, who);
  };
  if (body.stream) {
    await streamAnswer(request, reply, assistant, knowledgeBaseId, body, count, modelFailure, extra);
    return undefined;
  }
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  };
  reply.raw.once('close', onClose);
  try {
    const result = await assistant.ask(knowledgeBaseId, body, { signal: controller.signal, ...modelFailure });
    count(result.tookMs);
    return { ...result, ...extra(result) };
  } catch (error) {
    if (!controller.signal.aborted) throw error;
    // Nobody is left to answer: end quietly instead of reporting a server error.
    reply.hijack();
    reply.raw.destroy();
    return undefined;
  } finally {
    reply.raw.off('close', onClose);
  }
}

/**
 * Streams an answer as Server-Sent Events, for the API and the dashboard alike. `count` runs
 * only for a completed answer; a failure after the headers went out can no longer change
 * the status, so it becomes an `error` event unless the client already left.
 */
async function streamAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  assistant: Assistant,
  knowledgeBaseId: string,
  body: AskRequest,
  count: (tookMs: number) => void,
  modelFailure: Pick<AskOptions, 'showModelFailure' | 'onModelFailure'>,
  extra: (response: AskResponse) => Record<string, unknown>,
): Promise<void> {
  const stream = openEventStream(request, reply);
  const onEvent = (event: AskEvent) => {
    const { type, ...data } = event;
    stream.send(type, type === 'done' ? { ...event.response, ...extra(event.response) } : type === 'answer' ? { text: event.text } : data);
  };
  try {
    const result = await assistant.ask(knowledgeBaseId, body, { signal: stream.signal, onEvent, ...modelFailure });
    count(result.tookMs);
  } catch (error) {
    if (!stream.signal.aborted) {
      request.log.error({ err: error, requestId: request.id }, 'answer failed');
      stream.send('error', { code: 'internal_error', message: 'The answer could not be completed.', requestId: request.id });
    }
  } finally {
    stream.end();
  }
}
