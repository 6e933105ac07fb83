import { randomBytes } from 'node:crypto';
import type {
  AdminWebhook,
  CreatedWebhook,
  NewWebhook,
  WebhookAttemptView,
  WebhookEventType,
} from '../../common/contract/webhooks.ts';
import type { Job } from '../domain/job-record.ts';
import type { WebhookRecord, WebhookRepo } from '../storage/webhook-repo.ts';
import type { SecretSeal } from './sealed-secret.ts';
import { newSigningSecret } from './signing.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`;

/** A job the pipeline has just finished for good: what job.succeeded / job.failed report. */
export type EndedJob = { id: number; status: 'succeeded' | 'failed' };

/**
 * The webhooks the Owner and Admins register, and the one way events enter them: `emitEvent`.
 * An event is queued (in SQLite) for every webhook that wants its type, batched with the others of
 * the same second; `WebhookDelivery` sends them.
 */
export class Webhooks {
  constructor(
    private readonly repo: WebhookRepo,
    private readonly seal: SecretSeal,
    private readonly jobs: { get(id: number): Job | null },
    private readonly clock: () => number = Date.now,
  ) {}

  create(input: NewWebhook, createdBy: string | null): CreatedWebhook {
    const secret = newSigningSecret();
    const record: WebhookRecord = {
      id: newId('wh'),
      url: input.url,
      events: input.events,
      secretSealed: this.seal.seal(secret),
      createdBy,
      createdAt: this.clock(),
    };
    this.repo.insert(record);
    return { id: record.id, secret, webhook: this.view(record) };
  }

  list(): AdminWebhook[] {
    return this.repo.list().map((record) => this.view(record));
  }

  find(id: string): AdminWebhook | null {
    const record = this.repo.find(id);
    return record ? this.view(record) : null;
  }

  remove(id: string): boolean {
    return this.repo.remove(id);
  }

  /** The delivery log of a webhook, newest attempt first; null when there is no such webhook. */
  deliveries(id: string, limit = 100): WebhookAttemptView[] | null {
    if (!this.repo.find(id)) return null;
    return this.repo.attempts(id, limit).map((attempt) => ({
      deliveryId: attempt.deliveryId,
      at: iso(attempt.at),
      events: [...new Set(attempt.events.map((event) => event.type))],
      eventCount: attempt.events.length,
      attempt: attempt.attempt,
      httpStatus: attempt.httpStatus,
      error: attempt.error,
      durationMs: attempt.durationMs,
      state: attempt.state,
    }));
  }

  /**
   * Queues an event for every webhook that wants it. Any feature that has something to tell calls
   * this (job endings here; handoffs will). `data` is the event's payload as receivers read it.
   */
  emitEvent(type: WebhookEventType, data: Record<string, unknown>): void {
    const at = this.clock();
    const targets = this.repo.list().filter((webhook) => webhook.events.includes(type));
    for (const webhook of targets) {
      this.repo.addEvent(webhook.id, { id: newId('evt'), type, at: iso(at), data }, at, () => newId('dlv'));
    }
  }

  /** job.succeeded / job.failed for jobs the pipeline finished: when an integration's items are searchable. */
  jobsEnded(ended: EndedJob[]): void {
    for (const { id, status } of ended) {
      const job = this.jobs.get(id);
      if (!job) continue;
      this.emitEvent(status === 'succeeded' ? 'job.succeeded' : 'job.failed', {
        jobId: job.jobId,
        integrationId: job.integrationId,
        knowledgeBaseId: job.knowledgeBaseId,
        externalId: job.externalId,
        status,
        at: iso(job.finishedAt ?? job.updatedAt),
        ...(status === 'failed' ? { error: job.lastError } : {}),
      });
    }
  }

  /** job.failed for the jobs a lost worker held that crash recovery failed (a poison); the others were queued again. */
  jobsRecovered(jobIds: number[]): void {
    this.jobsEnded(jobIds.filter((id) => this.jobs.get(id)?.status === 'failed').map((id) => ({ id, status: 'failed' as const })));
  }

  /** The address and the opened signing secret, for the delivery pass only. */
  target(id: string): { url: string; secret: string | null } | null {
    const record = this.repo.find(id);
    return record ? { url: record.url, secret: this.seal.open(record.secretSealed) } : null;
  }

  private view(record: WebhookRecord): AdminWebhook {
    const last = this.repo.attempts(record.id, 1)[0];
    const lastDelivery = last
      ? { at: iso(last.at), state: last.state, httpStatus: last.httpStatus, error: last.error }
      : null;
    return {
      id: record.id,
      url: record.url,
      events: record.events,
      state: last && (last.state === 'failed' || last.state === 'retrying') ? 'failing' : 'active',
      createdAt: iso(record.createdAt),
      createdBy: record.createdBy,
      lastDelivery,
    };
  }
}
