import type { WebhookPayload } from '../../common/contract/webhooks.ts';
import type { BackgroundPass } from '../domain/background-pass.ts';
import type { DeliveryRecord, WebhookRepo } from '../storage/webhook-repo.ts';
import { SIGNATURE_HEADER, signatureOf } from './signing.ts';

const WEBHOOK_USER_AGENT = 'LocalIQ-Webhooks/1 (+https://localiq.app/docs/webhooks)';

/** 2, 4, 8, 16, 32 minutes between the 6 attempts: about an hour in all. */
export const DEFAULT_BACKOFF = (failedAttempts: number) => 120_000 * 2 ** (failedAttempts - 1);

export type DeliveryOptions = {
  repo: WebhookRepo;
  /** The webhook's address and opened secret (Webhooks.target). */
  target: (webhookId: string) => { url: string; secret: string | null } | null;
  clock?: () => number;
  /** How long to wait before the next attempt, after `failedAttempts` failures. */
  backoff?: (failedAttempts: number) => number;
  maxAttempts?: number;
  /** One receiver may take this long; a slower one is an error, and holds nothing else meanwhile. */
  timeoutMs?: number;
  /** How long delivered and failed deliveries stay in the log. */
  retentionMs?: number;
  /** How often the background pass looks for due deliveries. */
  intervalMs?: number;
  /** Most deliveries in flight at once. */
  concurrency?: number;
  /** Failed attempts are logged: never the body or the secret. */
  log?: (entry: { webhookId: string; deliveryId: string; attempt: number; httpStatus: number | null; error: string; final: boolean }) => void;
};

type Outcome = { httpStatus: number | null; error: string | null; durationMs: number };

/**
 * Sends due deliveries in the background: each a POST of `{events}` signed with the webhook's
 * secret, never following a redirect, cut off after `timeoutMs`, retried with backoff until a 2xx
 * or `maxAttempts`. Deliveries run side by side, so a slow receiver delays only its own.
 * A background pass (background-pass.ts) every `intervalMs`.
 */
export class WebhookDelivery implements BackgroundPass {
  readonly name = 'webhook-delivery';
  readonly intervalMs: number;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** A delivery started by an earlier run that failed past its attempt (its record could not be written). */
  private failure: { error: unknown } | null = null;
  private lastPrune = 0;
  private readonly clock: () => number;
  private readonly backoff: (failedAttempts: number) => number;
  private readonly maxAttempts: number;
  private readonly timeoutMs: number;
  private readonly retentionMs: number;
  private readonly concurrency: number;

  constructor(private readonly options: DeliveryOptions) {
    this.clock = options.clock ?? Date.now;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.maxAttempts = options.maxAttempts ?? 6;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retentionMs = options.retentionMs ?? 7 * 86_400_000;
    this.intervalMs = options.intervalMs ?? 500;
    this.concurrency = options.concurrency ?? 16;
  }

  /**
   * The background pass's run: starts the due deliveries and returns without waiting for them, so
   * a slow receiver does not hold the next run. A run that throws (the database busy past its
   * timeout on a loaded machine) is the runner's to log; the next run finds the same due
   * deliveries, which are in SQLite. A delivery of an earlier run that failed is thrown here.
   */
  run(): void {
    const failure = this.failure;
    this.failure = null;
    for (const sending of this.startDue()) sending.catch((error: unknown) => (this.failure ??= { error }));
    if (failure) throw failure.error;
  }

  /** Waits for the deliveries in flight (each ends by its timeout): the runner's last step on stopping. */
  flush(): Promise<void> {
    return this.idle();
  }

  /** Starts every due delivery not already in flight; resolves when those it started are done. */
  tick(): Promise<void> {
    return Promise.all(this.startDue()).then(() => undefined);
  }

  private startDue(): Array<Promise<void>> {
    const now = this.clock();
    if (now - this.lastPrune >= 3_600_000) {
      this.lastPrune = now;
      this.options.repo.prune(now - this.retentionMs);
    }
    const room = this.concurrency - this.inFlight.size;
    if (room <= 0) return [];
    const due = this.options.repo.due(now, room + this.inFlight.size).filter((delivery) => !this.inFlight.has(delivery.id));
    return due.slice(0, room).map((delivery) => {
      const sending = this.deliver(delivery).finally(() => this.inFlight.delete(delivery.id));
      this.inFlight.set(delivery.id, sending);
      return sending;
    });
  }

  /** Resolves when no delivery is in flight (one that failed included: run reports it). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled(this.inFlight.values());
  }

  private async deliver(delivery: DeliveryRecord): Promise<void> {
    const target = this.options.target(delivery.webhookId);
    if (!target) return;
    const attempt = delivery.attempts + 1;
    const outcome = target.secret === null
      ? { httpStatus: null, error: 'the signing secret cannot be read with this server secret; create the webhook again', durationMs: 0 }
      : await this.post(target.url, target.secret, delivery);
    const at = this.clock();
    const ok = outcome.error === null;
    const final = !ok && (attempt >= this.maxAttempts || target.secret === null);
    const state = ok ? 'delivered' : final ? 'failed' : 'retrying';
    this.options.repo.recordAttempt({ id: delivery.id, attempt, at, ...outcome, state, nextAt: ok || final ? at : at + this.backoff(attempt) });
    if (!ok) {
      this.options.log?.({ webhookId: delivery.webhookId, deliveryId: delivery.id, attempt, httpStatus: outcome.httpStatus, error: outcome.error!, final });
    }
  }

  private async post(url: string, secret: string, delivery: DeliveryRecord): Promise<Outcome> {
    const payload: WebhookPayload = { events: delivery.events };
    const body = JSON.stringify(payload);
    const started = performance.now();
    const duration = () => Math.round(performance.now() - started);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': WEBHOOK_USER_AGENT,
          [SIGNATURE_HEADER]: signatureOf(body, secret),
          'x-localiq-delivery': delivery.id,
        },
        body,
        // A redirect is not followed: the owner registered this address, not the one it points to.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // The answer's body is not used; reading it (under the same timeout) frees the connection.
      await response.arrayBuffer().catch(() => undefined);
      const status = response.status;
      if (status >= 200 && status < 300) return { httpStatus: status, error: null, durationMs: duration() };
      const error = status >= 300 && status < 400 ? `redirect (HTTP ${status}) not followed` : `HTTP ${status}`;
      return { httpStatus: status, error, durationMs: duration() };
    } catch (error) {
      return { httpStatus: null, error: this.describe(error), durationMs: duration() };
    }
  }

  private describe(error: unknown): string {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      return `no answer within ${this.timeoutMs / 1000} s`;
    }
    const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
    return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  }
}
