import type { AdminWebhook, CreatedWebhook, NewWebhook, WebhookAttemptView } from '../../../common/contract/webhooks.ts';
import { del, get, post, seg } from './client.ts';

/** Webhooks and their delivery logs: `/admin/api/webhooks`. */

export const listWebhooks = (signal?: AbortSignal) => get<{ data: AdminWebhook[] }>('/webhooks', signal);
export const addWebhook = (webhook: NewWebhook) => post<CreatedWebhook>('/webhooks', webhook);
export const deleteWebhook = (webhookId: string) => del<void>(`/webhooks/${seg(webhookId)}`);
export const listWebhookDeliveries = (webhookId: string, signal?: AbortSignal) => get<{ data: WebhookAttemptView[] }>(`/webhooks/${seg(webhookId)}/deliveries`, signal);
