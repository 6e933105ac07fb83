import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AskEvent, AskRequest } from '../contract/ask.ts';
import type { Assistant } from '../retrieval/answer/assistant.ts';
import { openEventStream } from './sse.ts';

/**
 * Streams an answer as Server-Sent Events, for the API and the dashboard alike. `count` runs
 * only for a completed answer; a failure after the headers went out can no longer change
 * the status, so it becomes an `error` event unless the client already left.
 */
export async function streamAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  assistant: Assistant,
  knowledgeBaseId: string,
  body: AskRequest,
  count: (tookMs: number) => void,
): Promise<void> {
  const stream = openEventStream(request, reply);
  const onEvent = (event: AskEvent) => {
    const { type, ...data } = event;
    stream.send(type, type === 'done' ? event.response : type === 'answer' ? { text: event.text } : data);
  };
  try {
    const result = await assistant.ask(knowledgeBaseId, body, { signal: stream.signal, onEvent });
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
