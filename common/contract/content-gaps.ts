import { z } from 'zod';
import { itemDataSchema } from './ingest.ts';
import { identifier, pushedIdentifier } from './text-rules.ts';

/**
 * Content gaps (dashboard, `/admin/api/content-gaps`): what visitors asked that the knowledge
 * base could not answer, or whose answer they rated down, grouped by meaning, most visitors first;
 * and "write the answer", which pushes an item through the normal ingestion path.
 */

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or date-time');

export const CONTENT_GAP_STATUSES = ['open', 'answered', 'all'] as const;

export const contentGapQuerySchema = z.strictObject({
  widgetId: z.string().min(1).max(64).optional(),
  knowledgeBaseId: identifier().optional(),
  from: isoDate.optional().describe('Questions asked at or after this time.'),
  to: isoDate.optional().describe('Questions asked before this time.'),
  status: z.enum(CONTENT_GAP_STATUSES).default('open'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** The integration an answer written in the dashboard is pushed under. */
export const DASHBOARD_INTEGRATION = 'dashboard';

export const writeAnswerSchema = z.strictObject({
  title: itemDataSchema.shape.title.trim().min(1),
  content: itemDataSchema.shape.content,
  url: itemDataSchema.shape.url,
  /** The item to create or replace (integration `dashboard`); by default one named after the group. */
  externalId: pushedIdentifier().optional(),
});
export type WriteAnswerInput = z.infer<typeof writeAnswerSchema>;

export type NearestItem = { integrationId: string; externalId: string; title: string; url: string | null; score: number };

export type AdminContentGap = {
  id: number;
  knowledgeBaseId: string;
  /** The question that started the group. */
  label: string;
  asked: number;
  visitors: number;
  abstained: number;
  thumbsDown: number;
  lastAskedAt: string;
  examples: Array<{ question: string; asked: number }>;
  /** What search finds for the question anyway: items that come close but did not answer it. */
  nearestItems: NearestItem[];
  answeredAt: string | null;
  answeredItem: { integrationId: string; externalId: string } | null;
  /** The curated answer the group was linked to ("Answered by one of your answers"), or null. */
  linkedAnswerId: number | null;
  askedSinceAnswer: number;
};

export type AdminContentGapReport = {
  data: AdminContentGap[];
  /** Questions not grouped yet (the grouping pass runs every few seconds). */
  pending: number;
};

/**
 * `POST /content-gaps/{groupId}/linked-answer`: the group is answered by one of the owner's
 * curated answers of its knowledge base; the group's wordings join that answer's `alsoAsked`.
 */
export const linkAnswerSchema = z.strictObject({
  curatedAnswerId: z.number().int().min(1).describe('A curated answer of the group\'s knowledge base.'),
});
export type LinkAnswerInput = z.infer<typeof linkAnswerSchema>;

export type LinkAnswerResult = {
  group: AdminContentGap | null;
  /** The wordings that joined the answer's `alsoAsked` (those it held already are not counted). */
  added: string[];
};

export type WriteAnswerResult = {
  jobId: string;
  knowledgeBaseId: string;
  integrationId: string;
  externalId: string;
  group: AdminContentGap | null;
  /** The curated answer made (or replaced) for the group's question, or null when the content is too long for one. */
  curatedAnswerId: number | null;
};
