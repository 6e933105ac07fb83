/**
 * `POST /knowledge-bases/{id}/ask` with the page the visitor is on (`context: {url?, externalId?}`).
 * A server that does not know the field yet rejects it (400, the contract's error with the detail
 * `context`: "is not a field here"): the ask is then sent without it, and every later one too, and
 * `contextSupported` says so, so a bench prints which reading it measured. Any other refusal throws.
 */
import type { AskResponse, ConversationTurn } from '../../common/contract/ask.ts';
import type { ApiTarget } from '../retrieval/http-client.ts';

export type PageContext = { url?: string; externalId?: string };
export type ContextualAsk = { question: string; conversation?: ConversationTurn[]; context?: PageContext };

export class ContextAsker {
  /** Null until an ask with a context was sent; then whether the server took it. */
  contextSupported: boolean | null = null;

  constructor(private readonly target: ApiTarget) {}

  async ask(kb: string, request: ContextualAsk): Promise<{ response: AskResponse; contextSent: boolean }> {
    const { context, ...rest } = request;
    if (context && this.contextSupported !== false) {
      const res = await this.post(kb, { ...rest, context });
      if (res.status === 200) {
        this.contextSupported = true;
        return { response: JSON.parse(res.text) as AskResponse, contextSent: true };
      }
      if (res.status === 400 && this.contextSupported === null && rejectsContextField(res.text)) {
        this.contextSupported = false;
      } else {
        throw new Error(`ask answered ${res.status}: ${res.text.slice(0, 300)}`);
      }
    }
    const res = await this.post(kb, rest);
    if (res.status !== 200) throw new Error(`ask answered ${res.status}: ${res.text.slice(0, 300)}`);
    return { response: JSON.parse(res.text) as AskResponse, contextSent: false };
  }

  private async post(kb: string, body: unknown): Promise<{ status: number; text: string }> {
    const res = await fetch(`${this.target.url}/knowledge-bases/${encodeURIComponent(kb)}/ask`, {
      method: 'POST',
      headers: { 'x-api-key': this.target.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  }
}

/** Whether a 400's body is the contract's error for `context` as a field the request may not have. */
export function rejectsContextField(body: string): boolean {
  try {
    const { details } = JSON.parse(body) as { details?: Array<{ path?: string; message?: string }> };
    return (details ?? []).some((d) => d.path === 'context' && /^is not a field here/.test(d.message ?? ''));
  } catch {
    return false;
  }
}
