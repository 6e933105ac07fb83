import { z } from 'zod';
import { type AskResponse, askRequestSchema } from './ask.ts';
import { identifier } from './text-rules.ts';
import type { VisitorCitation } from './widget.ts';

/**
 * The owner's view of conversations (dashboard, `/admin/api/conversations`): visitors' (through a
 * widget) and the dashboard chat's (a signed-in user), as a list with filters, a reading view,
 * deletion and export. Nothing here carries an IP address or its hash, nor a user's password or
 * session: the export is safe to hand to whoever reads the questions.
 */

/** Who asked: a visitor through a widget, or a user in the dashboard's chat. */
export const CONVERSATION_SOURCES = ['visitor', 'dashboard'] as const;
export type ConversationSource = (typeof CONVERSATION_SOURCES)[number];

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

/** The list's and the export's filters: those above and whose conversations. */
export const ownerConversationFilterSchema = conversationFilterSchema.extend({
  source: z
    .enum([...CONVERSATION_SOURCES, 'all'])
    .default('all')
    .describe('"visitor": conversations through a widget; "dashboard": the dashboard chat\'s; "all" (default): both. A widget filter selects visitors\' only.'),
});

export const conversationListQuerySchema = ownerConversationFilterSchema.extend({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(CONVERSATION_PAGE_MAX).default(50),
});

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const conversationExportQuerySchema = ownerConversationFilterSchema.extend({ format: z.enum(EXPORT_FORMATS) });

export const conversationDeleteOlderSchema = z.strictObject({
  before: isoDate.describe('Conversations last active before this time go, and older questions of those that go on.'),
});

/** The dashboard user who asked, as named when they asked. */
export type ConversationUser = { id: string; name: string };

export type AdminConversationSummary = {
  id: string;
  source: ConversationSource;
  /** The widget a visitor asked through; null for a dashboard conversation. */
  widgetId: string | null;
  /** The widget's name, or null when it was deleted since (or for a dashboard conversation). */
  widgetName: string | null;
  /** The website the visitor asked from; null for a dashboard conversation. */
  origin: string | null;
  /** Who asked in the dashboard; null for a visitor. */
  user: ConversationUser | null;
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
  source: ConversationSource;
  widgetId: string | null;
  widgetName: string | null;
  origin: string | null;
  /** The dashboard user's name; null for a visitor. */
  userName: string | null;
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
  /**
   * A question the visitor left for the shop (a handoff) is a row of its own, after the
   * conversation's questions: `answerId` is the handoff's id, `answer` the shop's reply ('' until
   * given), `answered` whether it was, and the contact details the visitor gave. Null on other rows.
   */
  handoffId: string | null;
  contactName: string | null;
  contactEmail: string | null;
  contactPhone: string | null;
};

/**
 * The dashboard chat's question (`POST /admin/api/knowledge-bases/{id}/ask`): the API's, and the
 * conversation it continues. Without one (or with one that is gone, or another user's) the answer
 * starts a new conversation; the answer names it (`DashboardAnswer.conversationId`).
 */
export const dashboardAskRequestSchema = askRequestSchema.extend({
  conversationId: z
    .string()
    .regex(/^dc_[A-Za-z0-9]{1,60}$/, 'must be a conversation id an earlier answer returned')
    .optional()
    .describe('The conversation an earlier answer of this chat returned.'),
});

/** The dashboard chat's answer (the JSON, or the `done` event): the API's, and where it was kept. */
export type DashboardAnswer = AskResponse & { conversationId?: string; answerId?: string };

/** Thumbs up or down on an answer of the user's own dashboard conversation. */
export const dashboardFeedbackSchema = z.strictObject({ rating: z.enum(['up', 'down']) });
