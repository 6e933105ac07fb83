/**
 * FAKE of LocalIQ's public widget API (`/v1/widget/{widgetId}/...`, common/contract/widget.ts),
 * used only to test the browser side (widget/) on its own: a small node:http server that speaks
 * the contract's wire format (origin check with CORS, bearer visitor sessions, answers as
 * Server-Sent Events, feedback) and can be told to answer the next questions slowly, be busy
 * (503), rate-limit (429 with Retry-After), expire the session once (401) or break an answer off. It serves the built out/widget/widget.js at /widget.js, as LocalIQ does.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  type PublicWidgetConfig,
  type VisitorAskRequest,
  type VisitorCitation,
  type VisitorFeedback,
  visitorAskRequestSchema,
  visitorFeedbackSchema,
} from '../../common/contract/widget.ts';

export const WIDGET_BUNDLE = path.resolve(import.meta.dirname, '../../out/widget/widget.js');

export type AskOutcome =
  | { kind: 'answer'; deltas: string[]; citations?: VisitorCitation[]; answered?: boolean; delayMs?: number }
  | { kind: 'busy' }
  | { kind: 'rate-limited'; retryAfter: number }
  | { kind: 'session-expired' }
  /** The connection closes after the first words of the answer. */
  | { kind: 'drop' };

export type FakeWidget = { config: PublicWidgetConfig; allowedOrigins: string[] };

export type FakeWidgetApi = {
  url: string;
  addWidget(widget: FakeWidget): void;
  /** What the next questions get, in order; after these, an instant answer quoting the question. */
  nextAsks(...outcomes: AskOutcome[]): void;
  asks: Array<{ token: string; body: VisitorAskRequest }>;
  feedback: VisitorFeedback[];
  sessionsCreated: number;
  /** Every request's method and path, preflights included. */
  requests: string[];
  close(): Promise<void>;
};

let requestCount = 0;

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

function refuse(res: http.ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  json(res, status, { statusCode: status, code, message, requestId: `req-${++requestCount}` }, headers);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeWidgetApi(): Promise<FakeWidgetApi> {
  const widgets = new Map<string, FakeWidget>();
  const tokens = new Set<string>();
  const answerIds = new Set<string>();
  const queue: AskOutcome[] = [];
  const api: FakeWidgetApi = {
    url: '',
    addWidget: (widget) => void widgets.set(widget.config.id, widget),
    nextAsks: (...outcomes) => void queue.push(...outcomes),
    asks: [],
    feedback: [],
    sessionsCreated: 0,
    requests: [],
    close: async () => {},
  };

  async function ask(res: http.ServerResponse, token: string, body: VisitorAskRequest): Promise<void> {
    const outcome = queue.shift() ?? { kind: 'answer', deltas: [`You asked: ${body.question}`] };
    switch (outcome.kind) {
      case 'busy':
        return refuse(res, 503, 'service_unavailable', 'The assistant is busy.', { 'retry-after': '5' });
      case 'rate-limited':
        return refuse(res, 429, 'rate_limited', 'Too many questions.', { 'retry-after': String(outcome.retryAfter) });
      case 'session-expired':
        tokens.delete(token);
        return refuse(res, 401, 'session_expired', 'The visitor session expired.');
    }
    api.asks.push({ token, body });
    const answerId = `ans_${api.asks.length}`;
    answerIds.add(answerId);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform' });
    res.flushHeaders();
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (outcome.kind === 'drop') {
      // Broken off after the first words (a closed connection before any response would be
      // retried by the browser on its own; the test of no response at all lives in the page).
      send('answer', { text: 'Let me see' });
      await sleep(100);
      res.socket?.destroy();
      return;
    }
    for (const text of outcome.deltas) {
      if (outcome.delayMs) await sleep(outcome.delayMs);
      send('answer', { text });
    }
    const citations = outcome.citations ?? [];
    send('citations', { citations });
    const answered = outcome.answered ?? true;
    send('done', { answerId, answered, answer: outcome.deltas.join(''), citations });
    res.end();
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    api.requests.push(`${req.method} ${url.pathname}`);
    if (req.method === 'GET' && url.pathname === '/widget.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(fs.readFileSync(WIDGET_BUNDLE));
      return;
    }
    const match = /^\/v1\/widget\/([^/]+)\/(config|sessions|ask|feedback)$/.exec(url.pathname);
    const origin = req.headers.origin ?? '';
    // Refusals carry CORS headers too: the widget must read the 403 to say why it stays hidden,
    // and Retry-After to know how long to wait.
    res.setHeader('access-control-allow-origin', origin || '*');
    res.setHeader('access-control-expose-headers', 'retry-after');
    res.setHeader('vary', 'origin');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    if (!match) return refuse(res, 404, 'not_found', 'Not found.');
    const widget = widgets.get(decodeURIComponent(match[1]!));
    if (!widget) return refuse(res, 404, 'widget_not_found', 'There is no such widget.');
    if (!widget.allowedOrigins.includes(origin)) return refuse(res, 403, 'origin_not_allowed', 'This origin may not use this widget.');
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk));
    req.on('end', () => {
      const endpoint = match[2];
      if (endpoint === 'config' && req.method === 'GET') return json(res, 200, widget.config);
      if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'Method not allowed.');
      if (endpoint === 'sessions') {
        const token = `tok_${++api.sessionsCreated}`;
        tokens.add(token);
        return json(res, 200, { token, expiresAt: new Date(Date.now() + 10 * 60_000).toISOString() });
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!tokens.has(token)) return refuse(res, 401, 'session_invalid', 'No valid visitor session.');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return refuse(res, 400, 'invalid_json', 'The body is not JSON.');
      }
      if (endpoint === 'ask') {
        const parsed = visitorAskRequestSchema.safeParse(body);
        if (!parsed.success) return refuse(res, 400, 'invalid_body', parsed.error.message);
        void ask(res, token, parsed.data);
        return;
      }
      const parsed = visitorFeedbackSchema.safeParse(body);
      if (!parsed.success || !answerIds.has(parsed.data.answerId)) return refuse(res, 400, 'invalid_body', 'Unknown answer.');
      api.feedback.push(parsed.data);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return api;
}
