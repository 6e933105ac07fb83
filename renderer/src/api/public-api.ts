import { ADMIN_PREFIX, CSRF_HEADER } from '../../../common/contract/admin.ts';
import { ErrorAnswer } from '../../../common/contract/errors.ts';
import { currentCsrfToken } from './client.ts';

/**
 * Calls to LocalIQ's public API from the dashboard, with an API key the user pasted. The key is
 * passed in by the caller on every call and never stored (not in localStorage, not in the URL):
 * key values are shown once, so the dashboard cannot read stored ones either.
 *
 * `'session'` calls the admin API's route of the same path instead (`/admin/api/ingest/bulk`,
 * `/admin/api/jobs`…), as the signed-in user: the file import needs no key.
 */
export type Caller = { apiKey: string } | 'session';

export type RawResponse = {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  ms: number;
};

/** One request exactly as asked: no retries, every header and the raw body kept for display. */
export async function rawRequest(caller: Caller, method: string, path: string, body?: string, signal?: AbortSignal): Promise<RawResponse> {
  const started = performance.now();
  const session = caller === 'session';
  const res = await fetch(session ? `${ADMIN_PREFIX}${path}` : path, {
    method,
    headers: {
      ...(session ? { [CSRF_HEADER]: currentCsrfToken() ?? '' } : { 'x-api-key': caller.apiKey }),
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    credentials: session ? 'same-origin' : 'omit',
    ...(body === undefined ? {} : { body }),
    ...(signal ? { signal } : {}),
  });
  const text = await res.text();
  const headers: Array<[string, string]> = [];
  res.headers.forEach((value, name) => headers.push([name, value]));
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, statusText: res.statusText, headers, body: text, json, ms: Math.round(performance.now() - started) };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/**
 * A JSON call that behaves like a well-made integration: waits out 429 for as long as
 * Retry-After says, retries 5xx and network failures a few times with backoff, and fails at once
 * on any other 4xx (a refused request cannot succeed by repeating it) with an ErrorAnswer whose
 * message carries the details, for display.
 */
export async function callJson<T>(
  caller: Caller,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
  options: { signal?: AbortSignal; onWait?: (reason: string, ms: number) => void } = {},
): Promise<T> {
  let failures = 0;
  for (;;) {
    let res: RawResponse;
    try {
      res = await rawRequest(caller, method, path, body === undefined ? undefined : JSON.stringify(body), options.signal);
    } catch (error) {
      if (options.signal?.aborted || ++failures >= 5) throw error;
      const wait = 500 * 2 ** failures;
      options.onWait?.('LocalIQ is not reachable', wait);
      await sleep(wait, options.signal);
      continue;
    }
    if (res.status >= 200 && res.status < 300) return res.json as T;
    if (res.status === 429) {
      const retryAfter = Number(res.headers.find(([name]) => name === 'retry-after')?.[1]);
      const wait = Math.max(1, Number.isFinite(retryAfter) ? retryAfter : 1) * 1000;
      options.onWait?.('rate limited', wait);
      await sleep(wait, options.signal);
      continue;
    }
    if (res.status >= 500 && ++failures < 5) {
      const wait = 500 * 2 ** failures;
      options.onWait?.(`server error ${res.status}`, wait);
      await sleep(wait, options.signal);
      continue;
    }
    const error = res.json as { code?: string; message?: string; details?: Array<{ path: string; message: string }> } | undefined;
    const details = (error?.details ?? []).map((d) => `${d.path ? `${d.path}: ` : ''}${d.message}`).join('; ');
    const message = error?.message ?? `${method} ${path} answered ${res.status}.`;
    throw new ErrorAnswer(res.status, error?.code ?? `http_${res.status}`, details ? `${message} (${details})` : message, error?.details ?? []);
  }
}

/** Single quotes for a POSIX shell: a ' inside becomes '\''. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The same request as a curl command, with the key left to an environment variable. */
export function curlCommand(origin: string, method: string, path: string, body?: string): string {
  const lines = [`curl -s -X ${method} ${shellQuote(origin + path)}`, `  -H "x-api-key: $LOCALIQ_API_KEY"`];
  if (body !== undefined) lines.push(`  -H 'content-type: application/json'`, `  --data-binary ${shellQuote(body)}`);
  return lines.join(' \\\n');
}
