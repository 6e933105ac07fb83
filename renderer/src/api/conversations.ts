import type { z } from 'zod';
import { ADMIN_PREFIX } from '../../../common/contract/admin.ts';
import type {
  AdminConversation,
  AdminConversationList,
  conversationDeleteOlderSchema,
  conversationExportQuerySchema,
  conversationListQuerySchema,
  dashboardFeedbackSchema,
} from '../../../common/contract/conversations.ts';
import { del, get, post, put, queryString, seg } from './client.ts';

/** Conversations of visitors and of the dashboard chat, and their ratings: `/admin/api/conversations`. */

export type ConversationListQuery = z.input<typeof conversationListQuerySchema>;

export const listConversations = (query: ConversationListQuery, signal?: AbortSignal) => get<AdminConversationList>(`/conversations${queryString(query)}`, signal);
export const getConversation = (id: string, signal?: AbortSignal) => get<AdminConversation>(`/conversations/${seg(id)}`, signal);
export const deleteConversation = (id: string) => del<void>(`/conversations/${seg(id)}`);
export const deleteOlderConversations = (request: z.input<typeof conversationDeleteOlderSchema>) => post<{ deleted: number }>('/conversations/delete-older', request);

/** The download link of the export (CSV or JSON Lines) of the conversations a filter selects. */
export const conversationExportUrl = (query: z.input<typeof conversationExportQuerySchema>) => `${ADMIN_PREFIX}/conversations/export${queryString(query)}`;

/** Rates one answer of the dashboard chat. */
export const rateAnswer = (conversationId: string, answerId: string, feedback: z.input<typeof dashboardFeedbackSchema>) =>
  put<void>(`/conversations/${seg(conversationId)}/answers/${seg(answerId)}/feedback`, feedback);
