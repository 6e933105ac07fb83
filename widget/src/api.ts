import type { PublicWidgetConfig, VisitorAskEvent, VisitorAskRequest, VisitorSession } from '../../common/contract/widget.ts';
import type { HandoffRequest, VisitorHandoffList } from '../../common/contract/handoffs.ts';
import { readEvents } from './sse.ts';

/**
 * The public side of a widget, `/v1/widget/{widgetId}/...` where the script came from: on its
 * origin and under its path, so a proxy that serves LocalIQ under a prefix
 * (`https://shop.example/assistant/widget.js`) is asked under that prefix too. No cookies are sent: a visitor session is a bearer token, renewed once, silently, when the
 * server says it expired.
 */

/** A refusal from the API, or `status` 0 with code `unreachable` when no answer came at all. */
export class WidgetError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds from Retry-After on a 429 or 503, when the server sent (and exposed) it. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** The `done` event of a visitor's ask, as the contract defines it. */
export type AnswerDone = Omit<Extract<VisitorAskEvent, { type: 'done' }>, 'type'>;
export type SessionStore = { get(): VisitorSession | null; set(session: VisitorSession | null): void };

/** A token this close to its expiry is renewed before use rather than refused mid-question. */
const EXPIRY_MARGIN_MS = 15_000;

function retryAfterSeconds(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

async function failure(res: Response): Promise<WidgetError> {
  const body = (await res.json().catch(() => null)) as { code?: unknown; message?: unknown } | null;
  return new WidgetError(
    res.status,
    typeof body?.code === 'string' ? body.code : `http_${res.status}`,
    typeof body?.message === 'string' ? body.message : `HTTP ${res.status}`,
    retryAfterSeconds(res.headers.get('retry-after')),
  );
}

/**
 * Where LocalIQ is reached, from the widget script's own address: its origin and everything of
 * its path before `/widget.js` (`https://shop.example/assistant/widget.js?v=…` →
 * `https://shop.example/assistant`), with no slash at the end. A script under another name keeps
 * its folder.
 */
export function apiBaseOf(scriptSrc: string, pageHref: string): string {
  const url = new URL(scriptSrc, pageHref);
  const folder = url.pathname.slice(0, url.pathname.lastIndexOf('/'));
  return `${url.origin}${folder}`;
}

export class WidgetApi {
  private readonly base: string;

  /** `apiBase` as `apiBaseOf` gives it: LocalIQ's origin and the proxy's path prefix, if any. */
  constructor(
    readonly apiBase: string,
    readonly widgetId: string,
    private readonly sessions: SessionStore,
  ) {
    this.base = `${apiBase}/v1/widget/${encodeURIComponent(widgetId)}/`;
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(this.base + path, { ...init, credentials: 'omit', mode: 'cors' });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new WidgetError(0, 'unreachable', String(error));
    }
    if (!res.ok) throw await failure(res);
    return res;
  }

  async config(): Promise<PublicWidgetConfig> {
    return (await this.send('config', { method: 'GET' })).json() as Promise<PublicWidgetConfig>;
  }

  private async token(): Promise<string> {
    const held = this.sessions.get();
    if (held && Date.parse(held.expiresAt) - EXPIRY_MARGIN_MS > Date.now()) return held.token;
    const session = (await (await this.send('sessions', { method: 'POST' })).json()) as VisitorSession;
    this.sessions.set(session);
    return session.token;
  }

  /** POSTs JSON with the session token; a token the server no longer takes is renewed once. */
  private async authorized(path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.token();
      try {
        return await this.send(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
          ...(signal ? { signal } : {}),
        });
      } catch (error) {
        const renew = error instanceof WidgetError && (error.code === 'session_expired' || error.code === 'session_invalid');
        if (!renew || attempt > 0) throw error;
        this.sessions.set(null);
      }
    }
  }

  /** Asks and streams the answer: `onText` gets each delta; resolves with the `done` event. */
  async ask(request: VisitorAskRequest, onText: (delta: string) => void, signal: AbortSignal): Promise<AnswerDone> {
    const res = await this.authorized('ask', request, signal);
    // Filled by the event callback, read once the stream has ended.
    const outcome: { done?: AnswerDone; error?: WidgetError } = {};
    try {
      await readEvents(res.body!, (type, data) => {
        if (type === 'answer' && typeof data.text === 'string') onText(data.text);
        else if (type === 'done') outcome.done = data as unknown as AnswerDone;
        else if (type === 'error') outcome.error = new WidgetError(200, String(data.code), String(data.message));
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new WidgetError(0, 'unreachable', String(error));
    }
    if (outcome.error) throw outcome.error;
    if (!outcome.done) throw new WidgetError(0, 'unreachable', 'the answer stream ended before its end');
    return outcome.done;
  }

  async feedback(answerId: string, rating: 'up' | 'down'): Promise<void> {
    await this.authorized('feedback', { answerId, rating });
  }

  /** Leaves a question for the shop; resolves with the token of the session that left it (to read the reply later). */
  async handoff(request: HandoffRequest): Promise<string> {
    await this.authorized('handoffs', request);
    return this.sessions.get()!.token;
  }

  /** The handoffs of the session `token` names, expired or not, with the shop's replies. */
  async handoffs(token: string): Promise<VisitorHandoffList['handoffs']> {
    const res = await this.send('handoffs', { method: 'GET', headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as VisitorHandoffList).handoffs;
  }
}

