import type { LlmEndpoint } from './llm-settings.ts';

export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

/** Why the endpoint could not produce an answer; the message is safe to show (no key, no body dump). */
export class LlmError extends Error {}

/**
 * Streams a chat completion from an OpenAI-compatible endpoint (`POST {baseUrl}/chat/completions`
 * with `stream: true`), yielding text deltas. `timeoutMs` bounds the wait for the response and for
 * each next piece, so a stalled server fails fast while a slow but steady one may finish.
 * Aborting `signal` (the client went away) stops the request.
 */
export async function* streamChat(endpoint: LlmEndpoint, messages: ChatMessage[], signal: AbortSignal): AsyncGenerator<string> {
  const controller = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, endpoint.timeoutMs);
  };
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  arm();
  try {
    let response: Response;
    try {
      response = await fetch(`${endpoint.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream, application/json',
          ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: endpoint.model, messages, stream: true, temperature: 0.2 }),
        signal: controller.signal,
        // The key was given for this address: a redirect elsewhere is not followed with it.
        redirect: 'manual',
      });
    } catch (error) {
      throw failure(error, timedOut, signal, endpoint);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      const redirect = response.status >= 300 && response.status < 400 ? ', a redirect, which is not followed' : '';
      throw new LlmError(`the language model endpoint answered HTTP ${response.status}${redirect}`);
    }
    const type = response.headers.get('content-type') ?? '';
    try {
      if (!type.includes('text/event-stream')) {
        // Servers that ignore `stream` send one JSON completion.
        const body = (await response.json()) as { choices?: Array<{ message?: { content?: string } }> };
        const content = body.choices?.[0]?.message?.content;
        if (typeof content !== 'string') throw new LlmError('the language model endpoint sent no answer');
        yield content;
        return;
      }
      for await (const data of sseData(response.body!, arm)) {
        if (data === '[DONE]') return;
        const delta = parseDelta(data);
        if (delta) yield delta;
      }
      throw new LlmError('the language model endpoint closed the stream before it finished');
    } catch (error) {
      if (error instanceof LlmError) throw error;
      throw failure(error, timedOut, signal, endpoint);
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/**
 * Asks the endpoint for a one-word reply, as a check that the settings work: null once it starts
 * answering, else why not (the same reasons an answer falls back for).
 */
export async function endpointProblem(endpoint: LlmEndpoint): Promise<string | null> {
  const check: ChatMessage[] = [{ role: 'user', content: 'Reply with the word OK.' }];
  try {
    for await (const _delta of streamChat(endpoint, check, new AbortController().signal)) return null;
    return 'the language model endpoint sent no answer';
  } catch (error) {
    if (error instanceof LlmError) return error.message;
    throw error;
  }
}

function failure(error: unknown, timedOut: boolean, signal: AbortSignal, endpoint: LlmEndpoint): Error {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason : new Error('aborted');
  if (timedOut) return new LlmError(`the language model endpoint did not answer within ${endpoint.timeoutMs} ms`);
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return new LlmError(`the language model endpoint could not be reached${cause ? ` (${cause})` : ''}`);
}

/** The `data:` payloads of a Server-Sent Events body; calls `onChunk` whenever bytes arrive. */
async function* sseData(body: ReadableStream<Uint8Array>, onChunk: () => void): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onChunk();
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
  }
  if (data.length) yield data.join('\n');
}

function parseDelta(data: string): string | null {
  let parsed: { choices?: Array<{ delta?: { content?: string | null } }>; error?: { message?: string } };
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new LlmError('the language model endpoint sent a malformed stream');
  }
  if (parsed.error) throw new LlmError('the language model endpoint reported an error');
  const content = parsed.choices?.[0]?.delta?.content;
  return typeof content === 'string' && content.length > 0 ? content : null;
}
