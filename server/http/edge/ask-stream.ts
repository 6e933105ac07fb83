import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AskRequest, AskResponse } from '../../../common/contract/ask.ts';
import type { AskOutcome, AskQuestion, AskQuestionEvent, Asker } from '../../retrieval/answer/ask-question.ts';
import { openEventStream } from './sse.ts';

/**
 * Serialises an answer for `POST /knowledge-bases/{id}/ask` and the dashboard's chat alike: as
 * JSON, or streamed when the body asks for it. The asking itself (retrieval, the decision, the
 * recorded turn) is the use case's (ask-question.ts). Returns the JSON answer, or nothing when the
 * response was streamed or the client left before the answer was ready.
 *
 * `extra` (the dashboard's chat) adds what the outcome says of the recorded turn to the answer
 * (the `done` event, or the JSON).
 */
export type AnswerExtra = (outcome: AskOutcome) => Record<string, unknown>;

export async function answerQuestion(
  request: FastifyRequest,
  reply: FastifyReply,
  askQuestion: AskQuestion,
  knowledgeBaseId: string,
  body: AskRequest,
  asker: Asker,
  extra: AnswerExtra = () => ({}),
): Promise<(AskResponse & Record<string, unknown>) | undefined> {
  const input = {
    knowledgeBaseIds: [knowledgeBaseId],
    request: body,
    asker,
    showModelFailure: request.adminSession?.user.role === 'owner',
    onModelFailure: (reason: string) => request.log.warn({ requestId: request.id, reason }, 'the language model could not be used; answered extractively'),
    onRecordFailure: (error: unknown) => request.log.error({ err: error, requestId: request.id }, 'the answer could not be kept'),
  };
  if (body.stream) {
    const stream = openEventStream(request, reply);
    const onEvent = (event: AskQuestionEvent) => {
      if (event.type === 'done') return stream.send('done', { ...event.outcome.response, ...extra(event.outcome) });
      const { type, ...data } = event;
      stream.send(type, type === 'answer' ? { text: event.text } : data);
    };
    try {
      await askQuestion.ask({ ...input, signal: stream.signal, onEvent });
    } catch (error) {
      // A failure after the headers went out can no longer change the status: an `error` event, unless the client left.
      if (!stream.signal.aborted) {
        request.log.error({ err: error, requestId: request.id }, 'answer failed');
        stream.send('error', { code: 'internal_error', message: 'The answer could not be completed.', requestId: request.id });
      }
    } finally {
      stream.end();
    }
    return undefined;
  }
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  };
  reply.raw.once('close', onClose);
  try {
    const outcome = await askQuestion.ask({ ...input, signal: controller.signal });
    return { ...outcome.response, ...extra(outcome) };
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
