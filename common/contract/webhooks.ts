import { z } from 'zod';

/**
 * Webhooks (admin API, Owner/Admin): LocalIQ POSTs signed, batched events to an address the owner
 * registers (docs/webhooks.md). The renderer and the CLI check addresses with the same rules.
 */
export const WEBHOOK_EVENTS = ['job.succeeded', 'job.failed', 'handoff.created'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_URL_MAX = 2_000;

/**
 * Why an address cannot receive webhooks, or null when it can: http or https only (no file:,
 * javascript:, ftp:), no user name or password in it (they would be stored and shown in clear),
 * at most WEBHOOK_URL_MAX characters. Loopback and private addresses are allowed on purpose: the
 * receiver may be a help desk on the shop's own network.
 */
export function webhookUrlProblem(value: string): string | null {
  if (value.length > WEBHOOK_URL_MAX) return `must be at most ${WEBHOOK_URL_MAX} characters`;
  if (!URL.canParse(value)) return 'must be an absolute http or https address';
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with http:// or https://';
  if (url.username || url.password) return 'must not contain a user name or password';
  if (!url.hostname) return 'must name a host';
  return null;
}

export const webhookUrlSchema = z.string().superRefine((value, context) => {
  const problem = webhookUrlProblem(value);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

export const newWebhookSchema = z.strictObject({
  url: webhookUrlSchema,
  events: z
    .array(z.enum(WEBHOOK_EVENTS))
    .min(1)
    .max(WEBHOOK_EVENTS.length)
    .refine((events) => new Set(events).size === events.length, 'names each event once'),
});
export type NewWebhook = z.infer<typeof newWebhookSchema>;

export const webhookParamsSchema = z.strictObject({ webhookId: z.string().min(1).max(64) });

/** The answer to a creation: the signing secret is shown this once and never again. */
export type CreatedWebhook = { id: string; secret: string; webhook: AdminWebhook };

/** How the last delivery went: 'ok' (2xx), 'retrying' (failed, tried again later), 'failed' (gave up). */
export type WebhookDeliveryState = 'pending' | 'delivered' | 'retrying' | 'failed';

/** A webhook as lists show it: never its secret. */
export type AdminWebhook = {
  id: string;
  url: string;
  events: WebhookEventType[];
  /** 'active' while its deliveries succeed or none was made; 'failing' when its last delivery gave up or is being retried. */
  state: 'active' | 'failing';
  createdAt: string;
  createdBy: string | null;
  lastDelivery: { at: string; state: WebhookDeliveryState; httpStatus: number | null; error: string | null } | null;
};

/** One attempt of one delivery: a POST of a batch of events. */
export type WebhookAttemptView = {
  deliveryId: string;
  at: string;
  events: WebhookEventType[];
  eventCount: number;
  attempt: number;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  state: WebhookDeliveryState;
};

/** The body of every delivery: the events of one second, oldest first. */
export type WebhookEvent = { id: string; type: WebhookEventType; at: string; data: Record<string, unknown> };
export type WebhookPayload = { events: WebhookEvent[] };
