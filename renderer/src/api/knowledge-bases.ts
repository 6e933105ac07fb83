import type { z } from 'zod';
import type { AdminIntegration, AdminKnowledgeBase } from '../../../common/contract/admin.ts';
import type { dashboardAskRequestSchema } from '../../../common/contract/conversations.ts';
import type { KnowledgeBaseSettingsView, knowledgeBaseSettingsUpdateSchema } from '../../../common/contract/knowledge.ts';
import { get, patch, postStream, seg } from './client.ts';

/** Knowledge bases, their integrations and settings, and the dashboard chat's questions to one: `/admin/api/knowledge-bases`. */

const base = (knowledgeBaseId: string) => `/knowledge-bases/${seg(knowledgeBaseId)}`;

export const listKnowledgeBases = (signal?: AbortSignal) => get<{ data: AdminKnowledgeBase[] }>('/knowledge-bases', signal);
export const listIntegrations = (knowledgeBaseId: string, signal?: AbortSignal) => get<{ data: AdminIntegration[] }>(`${base(knowledgeBaseId)}/integrations`, signal);
export const getKnowledgeBaseSettings = (knowledgeBaseId: string, signal?: AbortSignal) => get<KnowledgeBaseSettingsView>(`${base(knowledgeBaseId)}/settings`, signal);
export const updateKnowledgeBaseSettings = (knowledgeBaseId: string, change: z.input<typeof knowledgeBaseSettingsUpdateSchema>) =>
  patch<KnowledgeBaseSettingsView>(`${base(knowledgeBaseId)}/settings`, change);

/**
 * Asks the knowledge base's assistant with `stream: true`: `onEvent` gets each Server-Sent Event
 * (`answer`, `citations`, `fallback`, `done` with the DashboardAnswer, `error`) as it comes.
 */
export const askKnowledgeBase = (
  knowledgeBaseId: string,
  request: z.input<typeof dashboardAskRequestSchema>,
  onEvent: (event: string, data: unknown) => void,
  signal?: AbortSignal,
) => postStream(`${base(knowledgeBaseId)}/ask`, request, onEvent, signal);
