import type { WebhookDeliveryState, WebhookEvent, WebhookEventType } from '../../common/contract/webhooks.ts';
import type { Db } from './db.ts';

export type WebhookRecord = {
  id: string;
  url: string;
  events: WebhookEventType[];
  /** The signing secret as stored: sealed, opened only to sign (server/webhooks/sealed-secret.ts). */
  secretSealed: string;
  createdBy: string | null;
  createdAt: number;
};

export type DeliveryRecord = {
  id: string;
  webhookId: string;
  events: WebhookEvent[];
  state: WebhookDeliveryState;
  attempts: number;
  nextAt: number;
};

export type AttemptRecord = {
  deliveryId: string;
  at: number;
  events: WebhookEvent[];
  attempt: number;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  state: WebhookDeliveryState;
};

type WebhookRow = { id: string; url: string; events: string; secret_sealed: string; created_by: string | null; created_at: number };
type DeliveryRow = { id: string; webhook_id: string; events: string; state: WebhookDeliveryState; attempts: number; next_at: number };
type AttemptRow = {
  delivery_id: string;
  at: number;
  events: string;
  attempt: number;
  http_status: number | null;
  error: string | null;
  duration_ms: number;
  state: WebhookDeliveryState;
};

const toWebhook = (row: WebhookRow): WebhookRecord => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as WebhookEventType[],
  secretSealed: row.secret_sealed,
  createdBy: row.created_by,
  createdAt: row.created_at,
});

const toDelivery = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  webhookId: row.webhook_id,
  events: JSON.parse(row.events) as WebhookEvent[],
  state: row.state,
  attempts: row.attempts,
  nextAt: row.next_at,
});

const toAttempt = (row: AttemptRow): AttemptRecord => ({
  deliveryId: row.delivery_id,
  at: row.at,
  events: JSON.parse(row.events) as WebhookEvent[],
  attempt: row.attempt,
  httpStatus: row.http_status,
  error: row.error,
  durationMs: row.duration_ms,
  state: row.state,
});

/** Webhooks, their pending and past deliveries, and each attempt (migration: webhooks). */
export class WebhookRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        'INSERT INTO webhooks (id, url, events, secret_sealed, created_by, created_at) VALUES (@id, @url, @events, @secretSealed, @createdBy, @createdAt)',
      ),
      list: db.prepare<[], WebhookRow>('SELECT * FROM webhooks ORDER BY created_at, id'),
      byId: db.prepare<[string], WebhookRow>('SELECT * FROM webhooks WHERE id = ?'),
      remove: db.prepare<[string]>('DELETE FROM webhooks WHERE id = ?'),
      openBatch: db.prepare<[string, number], DeliveryRow>(
        "SELECT * FROM webhook_deliveries WHERE webhook_id = ? AND second = ? AND state = 'pending' AND attempts = 0",
      ),
      setEvents: db.prepare<[string, number, string]>('UPDATE webhook_deliveries SET events = ?, updated_at = ? WHERE id = ?'),
      insertDelivery: db.prepare(
        `INSERT INTO webhook_deliveries (id, webhook_id, second, events, state, attempts, next_at, created_at, updated_at)
         VALUES (@id, @webhookId, @second, @events, 'pending', 0, @nextAt, @now, @now)`,
      ),
      due: db.prepare<[number, number], DeliveryRow>(
        "SELECT * FROM webhook_deliveries WHERE state IN ('pending', 'retrying') AND next_at <= ? ORDER BY next_at, id LIMIT ?",
      ),
      settle: db.prepare(
        'UPDATE webhook_deliveries SET state = @state, attempts = @attempt, next_at = @nextAt, updated_at = @at WHERE id = @id',
      ),
      insertAttempt: db.prepare(
        `INSERT INTO webhook_attempts (delivery_id, attempt, at, http_status, error, duration_ms)
         VALUES (@id, @attempt, @at, @httpStatus, @error, @durationMs)`,
      ),
      attempts: db.prepare<[string, number], AttemptRow>(
        `SELECT a.delivery_id, a.at, d.events, a.attempt, a.http_status, a.error, a.duration_ms, d.state
           FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE d.webhook_id = ? ORDER BY a.at DESC, a.attempt DESC LIMIT ?`,
      ),
      prune: db.prepare<[number]>("DELETE FROM webhook_deliveries WHERE state IN ('delivered', 'failed') AND updated_at < ?"),
    };
  }

  insert(record: WebhookRecord): void {
    this.stmts.insert.run({ ...record, events: JSON.stringify(record.events) });
  }

  list(): WebhookRecord[] {
    return this.stmts.list.all().map(toWebhook);
  }

  find(id: string): WebhookRecord | null {
    const row = this.stmts.byId.get(id);
    return row ? toWebhook(row) : null;
  }

  /** Deletes the webhook with its deliveries and their attempts; false when there was none. */
  remove(id: string): boolean {
    return this.stmts.remove.run(id).changes > 0;
  }

  /**
   * Adds an event to the webhook's batch of its second, opening one when there is none yet: the
   * batch goes out once its second is over (`nextAt`), so events of one second make one POST.
   */
  addEvent(webhookId: string, event: WebhookEvent, at: number, newId: () => string): void {
    const second = Math.floor(at / 1000);
    this.db.transaction(() => {
      const open = this.stmts.openBatch.get(webhookId, second);
      if (open) {
        const events = JSON.parse(open.events) as WebhookEvent[];
        this.stmts.setEvents.run(JSON.stringify([...events, event]), at, open.id);
      } else {
        this.stmts.insertDelivery.run({ id: newId(), webhookId, second, events: JSON.stringify([event]), nextAt: (second + 1) * 1000, now: at });
      }
    })();
  }

  /** Deliveries whose time has come, oldest first. */
  due(now: number, limit: number): DeliveryRecord[] {
    return this.stmts.due.all(now, limit).map(toDelivery);
  }

  /** Records an attempt and what follows it (delivered, retried at nextAt, or failed for good). */
  recordAttempt(attempt: {
    id: string;
    attempt: number;
    at: number;
    httpStatus: number | null;
    error: string | null;
    durationMs: number;
    state: WebhookDeliveryState;
    nextAt: number;
  }): void {
    this.db.transaction(() => {
      // A webhook deleted while its delivery was in flight took the delivery with it: nothing to record.
      if (this.stmts.settle.run(attempt).changes === 0) return;
      this.stmts.insertAttempt.run(attempt);
    })();
  }

  /** The webhook's delivery log, newest attempt first. */
  attempts(webhookId: string, limit: number): AttemptRecord[] {
    return this.stmts.attempts.all(webhookId, limit).map(toAttempt);
  }

  /** Removes finished deliveries (and their attempts) last changed before `before`; how many. */
  prune(before: number): number {
    return this.stmts.prune.run(before).changes;
  }
}
