import { ADMIN_PREFIX, CSRF_HEADER } from '../../../common/contract/admin.ts';
import { ErrorAnswer } from '../../../common/contract/errors.ts';

/**
 * The one HTTP client of the admin API (`/admin/api`): the session's CSRF token, the contract's
 * error shape (`ErrorAnswer`) for every refusal, and the sign-in page when the session is gone.
 * Only the modules beside it (`api/<resource>.ts`) call it: a screen calls a resource's function,
 * never a path.
 */

/**
 * The CSRF token lives in memory only (never in localStorage): it comes with the session and is
 * sent back on every state-changing request.
 */
let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}
export function currentCsrfToken(): string | null {
  return csrfToken;
}

/** Called when the server says the session is gone, so the app can show the sign-in page. */
let onSignedOut: () => void = () => {};
export function setSignedOutHandler(handler: () => void): void {
  onSignedOut = handler;
}

export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers[CSRF_HEADER] = csrfToken ?? 'sign-in';
  const res = await fetch(`${ADMIN_PREFIX}${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  });
  if (res.status === 204) return undefined as T;
  const json = (await res.json().catch(() => null)) as { code?: string; message?: string; details?: [] } | null;
  if (!res.ok) {
    const failure = new ErrorAnswer(res.status, json?.code ?? 'error', json?.message ?? `Request failed (${res.status}).`, json?.details ?? []);
    if (res.status === 401 && failure.code === 'not_signed_in' && !path.startsWith('/session') && !path.startsWith('/setup')) {
      onSignedOut();
    }
    throw failure;
  }
  // Sign-in, setup and a password change start a new session with a new CSRF token.
  const token = (json as { csrfToken?: unknown } | null)?.csrfToken;
  if (typeof token === 'string') csrfToken = token;
  return json as T;
}

export const get = <T,>(path: string, signal?: AbortSignal) => api<T>('GET', path, undefined, signal);
export const post = <T,>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const patch = <T,>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const del = <T,>(path: string) => api<T>('DELETE', path);
export const put = <T,>(path: string, body: unknown) => api<T>('PUT', path, body);

/** POST that answers with Server-Sent Events; calls onEvent for each event until the stream ends. */
export async function postStream(
  path: string,
  body: unknown,
  onEvent: (event: string, data: unknown) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await fetch(`${ADMIN_PREFIX}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', [CSRF_HEADER]: csrfToken ?? '' },
    credentials: 'same-origin',
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  if (!res.ok || !res.body) {
    const json = (await res.json().catch(() => null)) as { code?: string; message?: string } | null;
    throw new ErrorAnswer(res.status, json?.code ?? 'error', json?.message ?? `Request failed (${res.status}).`);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length) onEvent(event, JSON.parse(data.join('\n')));
    }
  }
}

/** Path segments are user data (ids may hold slashes or spaces). */
export const seg = (value: string) => encodeURIComponent(value);

/** A query string (`?a=1&b=2`, or '' when empty) from the fields that are set: an empty filter is no filter. */
export function queryString(fields: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * POST of a multipart form through XMLHttpRequest, the one browser API that reports upload
 * progress (`onProgress` gets the bytes sent and the total); answers and fails as `api` does.
 */
export function postForm<T>(path: string, form: FormData, onProgress: (sent: number, total: number) => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${ADMIN_PREFIX}${path}`);
    xhr.withCredentials = true;
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader(CSRF_HEADER, csrfToken ?? '');
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : 0);
    xhr.onerror = () => reject(new ErrorAnswer(0, 'network_error', 'The upload did not reach LocalIQ (the connection failed).', []));
    xhr.onabort = () => reject(new DOMException('The upload was stopped.', 'AbortError'));
    xhr.onload = () => {
      let json: { code?: string; message?: string; details?: [] } | null = null;
      try {
        json = JSON.parse(xhr.responseText);
      } catch {
        json = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(json as T);
      const failure = new ErrorAnswer(xhr.status, json?.code ?? 'error', json?.message ?? `Request failed (${xhr.status}).`, json?.details ?? []);
      if (xhr.status === 401 && failure.code === 'not_signed_in') onSignedOut();
      reject(failure);
    };
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
