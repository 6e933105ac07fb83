import { z } from 'zod';
import { identifier } from './text-rules.ts';
import type { VisitorCitation } from './widget.ts';

/**
 * The owner's view of visitors' conversations (dashboard, `/admin/api/conversations`): a list
 * with filters, a reading view, deletion and export. Nothing here carries an IP address or its
 * hash: the export is safe to hand to whoever reads the questions.
 */

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or date-time');
const flag = z.enum(['true', 'false']).optional();

/** The filters the list, the export and the content-gap report share. */
export const conversationFilterSchema = z.strictObject({
  widgetId: z.string().min(1).max(64).optional(),
  knowledgeBaseId: identifier().optional(),
  from: isoDate.optional().describe('Conversations started at or after this time.'),
  to: isoDate.optional().describe('Conversations started before this time.'),
  unanswered: flag.describe('"true": only conversations with a question the knowledge base held no answer to.'),
  thumbsDown: flag.describe('"true": only conversations with an answer a visitor rated down.'),
  q: z.string().trim().max(200).optional().describe('Words the questions contain (case-insensitive).'),
});
export type ConversationFilterQuery = z.infer<typeof conversationFilterSchema>;

export const CONVERSATION_PAGE_MAX = 200;

export const conversationListQuerySchema = conversationFilterSchema.extend({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(CONVERSATION_PAGE_MAX).default(50),
});

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const conversationExportQuerySchema = conversationFilterSchema.extend({ format: z.enum(EXPORT_FORMATS) });

export const conversationDeleteOlderSchema = z.strictObject({
  before: isoDate.describe('Conversations last active before this time go, and older questions of those that go on.'),
});

export type AdminConversationSummary = {
  id: string;
  widgetId: string;
  /** The widget's name, or null when it was deleted since. */
  widgetName: string | null;
  origin: string;
  startedAt: string;
  lastSeenAt: string;
  turns: number;
  unanswered: number;
  thumbsDown: number;
  thumbsUp: number;
  firstQuestion: string | null;
};

export type AdminConversationTurn = {
  id: string;
  knowledgeBaseId: string;
  question: string;
  answer: string;
  answered: boolean;
  citations: VisitorCitation[];
  latencyMs: number;
  feedback: 'up' | 'down' | null;
  askedAt: string;
};

export type AdminConversationList = { data: AdminConversationSummary[]; nextCursor: string | null };
export type AdminConversation = AdminConversationSummary & { turnList: AdminConversationTurn[] };

/** One line of the JSON Lines export, one row of the CSV (whose citations are titles joined by " | "). */
export type ConversationExportRow = {
  conversationId: string;
  widgetId: string;
  widgetName: string | null;
  origin: string;
  startedAt: string;
  answerId: string;
  askedAt: string;
  knowledgeBaseId: string;
  question: string;
  answer: string;
  answered: boolean;
  feedback: 'up' | 'down' | null;
  latencyMs: number;
  citations: VisitorCitation[];
};
