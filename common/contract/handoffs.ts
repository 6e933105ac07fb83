import { z } from 'zod';
import { safeText } from './text-rules.ts';
import { VISITOR_QUESTION_MAX } from './visitor-limits.ts';

/**
 * Handoffs: a visitor whose question the assistant could not answer (or who asked for a person)
 * leaves it for the shop with a way to be reached; the owner replies in the dashboard's inbox and
 * the visitor reads the reply in the widget. The contact details are personal data: they are kept
 * with the visitor's conversation, go with it, and never reach the logs.
 */

export const HANDOFF_ID_PATTERN = /^hnd_[A-Za-z0-9]{20}$/;
export const HANDOFF_STATUSES = ['open', 'answered'] as const;
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];
/** A reply the owner writes; as long as a curated answer may be, so it can become one. */
export const HANDOFF_REPLY_MAX = 8_000;
/** Handoffs one visitor session may leave: a visitor asks the shop a few things, not dozens. */
export const HANDOFFS_PER_SESSION = 5;

/** Digits, spaces and the usual separators, with an optional leading +; 5 to 20 digits. */
const PHONE = /^\+?[0-9 ().\/-]{5,30}$/;

/** `POST /v1/widget/{widgetId}/handoffs`: at least one of e-mail and phone, and the visitor's consent. */
export const handoffRequestSchema = z
  .strictObject({
    question: safeText(VISITOR_QUESTION_MAX).trim().min(1).describe('What the visitor wants the shop to answer.'),
    name: safeText(100).trim().min(1).optional().describe("The visitor's name, if they gave one."),
    email: z.email('must be an e-mail address, like name@example.com').max(254).optional(),
    phone: z
      .string()
      .max(30)
      .regex(PHONE, 'must be a phone number: digits, spaces, ( ) . / - and an optional leading +')
      .refine((s) => (s.match(/\d/g)?.length ?? 0) >= 5 && (s.match(/\d/g)?.length ?? 0) <= 20, 'must hold 5 to 20 digits')
      .optional(),
    consent: z.literal(true, 'the visitor must consent to being contacted (consent: true)'),
  })
  .refine((body) => body.email !== undefined || body.phone !== undefined, {
    message: 'give an e-mail address or a phone number, so the shop can reply',
    path: ['email'],
  })
  .meta({ id: 'HandoffRequest' });
export type HandoffRequest = z.infer<typeof handoffRequestSchema>;

export const handoffCreatedSchema = z
  .strictObject({ id: z.string(), status: z.literal('open') })
  .meta({ id: 'HandoffCreated' });

/** `GET /v1/widget/{widgetId}/handoffs`: the session's own handoffs, oldest first, with the shop's reply once given. */
export const visitorHandoffListSchema = z
  .strictObject({
    handoffs: z.array(
      z.strictObject({
        id: z.string(),
        question: z.string(),
        status: z.enum(HANDOFF_STATUSES),
        reply: z.strictObject({ text: z.string(), at: z.string() }).optional(),
      }),
    ),
  })
  .meta({ id: 'VisitorHandoffList' });
export type VisitorHandoffList = z.infer<typeof visitorHandoffListSchema>;

// The owner's side, `/admin/api/handoffs`.

export const handoffListQuerySchema = z.strictObject({
  status: z.enum(['open', 'answered', 'all']).default('open'),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});

export const handoffParamsSchema = z.strictObject({
  handoffId: z.string().regex(HANDOFF_ID_PATTERN, 'a handoff id looks like hnd_ followed by 20 letters and digits'),
});

export const handoffReplySchema = z.strictObject({
  text: safeText(HANDOFF_REPLY_MAX).trim().min(1).describe('The reply the visitor reads in the widget.'),
  saveAsAnswer: z
    .boolean()
    .default(false)
    .describe("Also keep the reply as a curated answer to the handoff's question in the widget's knowledge base (Owner and Admins)."),
});
export type HandoffReplyInput = z.input<typeof handoffReplySchema>;

/** A turn of the conversation that led to a handoff, as the inbox shows it. */
export type AdminHandoffTurn = { question: string; answer: string; answered: boolean; askedAt: string };

export type AdminHandoff = {
  id: string;
  status: HandoffStatus;
  widgetId: string;
  /** null once the widget is deleted. */
  widgetName: string | null;
  /** The visitor's conversation (GET /admin/api/conversations/{id}). */
  conversationId: string;
  knowledgeBaseId: string;
  question: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  createdAt: string;
  reply: { text: string; at: string; by: string | null } | null;
  conversation: AdminHandoffTurn[];
};

export type AdminHandoffList = { data: AdminHandoff[]; counts: HandoffCounts };
export type HandoffCounts = { open: number; answered: number };
export type HandoffReplyResult = { handoff: AdminHandoff; curatedAnswerId: number | null };
