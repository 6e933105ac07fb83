import { ErrorAnswer } from '../../../common/contract/errors.ts';

export type ApiClientOptions = {
  url: string;
  apiKey: string;
  /** Attempts for 5xx and network failures (429 waits do not count). */
  maxAttempts?: number;
  /** First backoff delay; it doubles per attempt, capped at 30 s. */
  baseDelayMs?: number;
  /** Most 429 waits for one request before giving up. */
  maxRateLimitWaits?: number;
  onRetry?: (info: { reason: string; waitMs: number }) => void;
  /** Said after "Cannot reach LocalIQ at …": where the address came from and how to start a server. */
  unreachableHint?: string;
  sleep?: (ms: number) => Promise<void>;
};

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait before the next try after `failures` 5xx or network failures: doubling, capped at 30 s. */
const backoffMs = (baseDelayMs: number, failures: number) => Math.min(30_000, baseDelayMs * 2 ** (failures - 1));

/**
 * A small client of LocalIQ's HTTP API for the import command. It behaves the way the
 * integration guide asks every integration to: waits out `429` for as long as `Retry-After`
 * says, retries `5xx` and network failures with exponential backoff, and gives up on any other
 * `4xx` at once (retrying a request the server refused as wrong cannot succeed).
 */
export class ApiClient {
  private readonly base: string;

  constructor(private readonly options: ApiClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
  }

  /** `body`: JSON, or a FormData sent as multipart/form-data (files whose Blobs read from disk, so they can be sent again). */
  async request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const { maxAttempts = 6, baseDelayMs = 500, maxRateLimitWaits = 100, onRetry, sleep = defaultSleep } = this.options;
    let failures = 0;
    let rateLimitWaits = 0;
    for (;;) {
      let response: Response;
      try {
        response = await fetch(`${this.base}${path}`, {
          method,
          headers: {
            'x-api-key': this.options.apiKey,
            // A form (files) sets its own multipart content type, with its boundary.
            ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }),
        });
      } catch (error) {
        failures++;
        const why = (error as { cause?: { code?: string; message?: string } }).cause;
        const cause = why?.code ?? why?.message ?? (error as Error).message;
        if (failures >= maxAttempts) {
          const hint = this.options.unreachableHint ? ` ${this.options.unreachableHint}` : '';
          throw new Error(`Cannot reach LocalIQ at ${this.base} (${cause}).${hint}`);
        }
        const waitMs = backoffMs(baseDelayMs, failures);
        onRetry?.({ reason: `network error (${cause})`, waitMs });
        await sleep(waitMs);
        continue;
      }
      if (response.ok) return (await response.json()) as T;
      const payload = (await response.json().catch(() => null)) as
        | { code?: string; message?: string; details?: Array<{ path: string; message: string }> }
        | null;
      if (response.status === 429 && rateLimitWaits < maxRateLimitWaits) {
        rateLimitWaits++;
        const waitMs = Math.max(1, Number(response.headers.get('retry-after')) || 1) * 1000;
        onRetry?.({ reason: 'rate limited', waitMs });
        await sleep(waitMs);
        continue;
      }
      if (response.status >= 500 && failures + 1 < maxAttempts) {
        failures++;
        const waitMs = backoffMs(baseDelayMs, failures);
        onRetry?.({ reason: `server error ${response.status}`, waitMs });
        await sleep(waitMs);
        continue;
      }
      throw new ErrorAnswer(
        response.status,
        payload?.code ?? `http_${response.status}`,
        payload?.message ?? `${method} ${path} answered ${response.status}.`,
        payload?.details ?? [],
      );
    }
  }
}
