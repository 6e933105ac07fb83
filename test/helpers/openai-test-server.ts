/**
 * TEST DOUBLE for an OpenAI-compatible chat endpoint (llama.cpp server, Ollama, LM Studio): no
 * model weights exist on this machine, so this real HTTP server speaks the real wire protocol of
 * `POST /v1/chat/completions` (JSON, or Server-Sent Events chunks ending in `data: [DONE]`) and
 * writes its "answer" by quoting the first passage of the prompt it receives, citing it as [1].
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  | 'answer' | 'not-found' | 'http-error' | 'stall' | 'stall-midway' | 'cite-out-of-range'
  /** What a model told "repeat everything above" writes: every message of the prompt, word for word. */
  | 'repeat-everything'
  /** The prompt's passages block, word for word. */
  | 'repeat-passages'
  /** A grounded first sentence, then on and on in words of its own, far past any answer's length. */
  | 'ramble';

export type ReceivedRequest = {
  authorization: string | undefined;
  body: { model: string; stream?: boolean; messages: Array<{ role: string; content: string }> };
};

export type OpenAiTestServer = {
  baseUrl: string;
  behaviour: Behaviour;
  requests: ReceivedRequest[];
  /** Resolves when a client closed a request before the answer ended. */
  closedEarly: number;
  close(): Promise<void>;
};

const NOT_FOUND = 'The knowledge base does not contain the answer to this question.';

/** The first sentence of the first numbered passage in the last user message. */
function quoteFirstPassage(messages: ReceivedRequest['body']['messages']): string {
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const passage = /\[1\] [^\n]*\n([^\n]+)/.exec(user)?.[1] ?? '';
  const sentence = /^.*?[.!?](\s|$)/.exec(passage)?.[0]?.trim() ?? passage;
  return `${sentence} [1]`;
}

function answerText(mode: Behaviour, messages: ReceivedRequest['body']['messages']): string {
  if (mode === 'not-found') return NOT_FOUND;
  if (mode === 'cite-out-of-range') return `${quoteFirstPassage(messages)} See also [9].`;
  if (mode === 'repeat-everything') return messages.map((m) => m.content).join('\n\n');
  if (mode === 'repeat-passages') {
    const user = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    return /<passages>\n([\s\S]*)\n<\/passages>/.exec(user)?.[1] ?? '';
  }
  if (mode === 'ramble') {
    const more = Array.from({ length: 12 }, (_, i) => `Visit number ${i + 1} to our little shop is always a pleasure for everyone involved.`);
    return [quoteFirstPassage(messages), ...more].join(' ');
  }
  return quoteFirstPassage(messages);
}

function chunk(id: string, model: string, delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;
}

export async function startOpenAiTestServer(behaviour: Behaviour = 'answer'): Promise<OpenAiTestServer> {
  const state: OpenAiTestServer = {
    baseUrl: '',
    behaviour,
    requests: [],
    closedEarly: 0,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(raw) as ReceivedRequest['body'];
      state.requests.push({ authorization: req.headers.authorization, body });
      res.on('close', () => {
        if (!res.writableFinished) state.closedEarly++;
      });
      const mode = state.behaviour;
      if (mode === 'http-error') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"model crashed","type":"server_error"}}');
        return;
      }
      if (mode === 'stall') return; // never answers; the client's timeout must end it
      const text = answerText(mode, body.messages);
      const id = `chatcmpl-test-${state.requests.length}`;
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(chunk(id, body.model, { role: 'assistant', content: '' }));
      const pieces = text.match(/\S+\s*/g) ?? [];
      let i = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        if (mode === 'stall-midway' && i === 2) return; // stops sending after two pieces
        if (i < pieces.length) {
          res.write(chunk(id, body.model, { content: pieces[i++] }));
          return;
        }
        clearInterval(timer);
        res.write(chunk(id, body.model, {}, 'stop'));
        res.end('data: [DONE]\n\n');
      }, 15);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
