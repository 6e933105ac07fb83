import type { z } from 'zod';
import type { AdminHandoffList, HandoffCounts, handoffListQuerySchema, HandoffReplyInput, HandoffReplyResult } from '../../../common/contract/handoffs.ts';
import { get, post, queryString, seg } from './client.ts';

/** Questions visitors left for the shop (the Inbox) and the replies: `/admin/api/handoffs`. */

export const listHandoffs = (query: z.input<typeof handoffListQuerySchema>, signal?: AbortSignal) => get<AdminHandoffList>(`/handoffs${queryString(query)}`, signal);
export const getHandoffCounts = () => get<HandoffCounts>('/handoffs/count');
export const replyToHandoff = (handoffId: string, reply: HandoffReplyInput) => post<HandoffReplyResult>(`/handoffs/${seg(handoffId)}/reply`, reply);
