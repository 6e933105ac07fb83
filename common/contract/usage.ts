import { z } from 'zod';
import { identifier } from './text-rules.ts';

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or date-time');

export const usageQuerySchema = z.strictObject({
  from: isoDate.optional().describe('Start (inclusive, rounded down to the bucket). Default: 30 days (day) or 48 hours (hour) before `to`.'),
  to: isoDate.optional().describe('End (exclusive, rounded up to the bucket). Default: now.'),
  granularity: z.enum(['hour', 'day']).default('day'),
  keyId: z.string().max(64).optional().describe('Only this API key (its public id, as in the key value liq_<id>_…).'),
  knowledgeBaseId: identifier().optional(),
  widgetId: z.string().max(64).optional().describe("Only this widget's visitors (in `visitors`; the API counts do not depend on it)."),
});

const latencySchema = z.strictObject({ median: z.number().nullable(), p95: z.number().nullable() });

export const usageTotalsSchema = z
  .strictObject({
    requests: z.number().int().describe('API-key requests answered (any status once the key was recognised).'),
    itemsPushed: z.number().int(),
    jobs: z.strictObject({
      succeeded: z.number().int(),
      skipped: z.number().int(),
      failed: z.number().int(),
      cancelled: z.number().int(),
    }),
    chunksEmbedded: z.number().int(),
    searches: z.number().int(),
    questions: z.number().int(),
    answerLatencyMs: latencySchema,
  })
  .meta({ id: 'UsageTotals' });

const visitorCountsSchema = z.strictObject({
  questions: z.number().int().describe("Visitors' questions through widgets."),
  answered: z.number().int().describe('Of those, the ones the knowledge base held the answer to.'),
  feedbackUp: z.number().int(),
  feedbackDown: z.number().int(),
});

const answerTimeSchema = z
  .strictObject({ median: z.number().nullable(), p95: z.number().nullable() })
  .describe('Time from the question to the whole answer, in ms, over the conversations kept (null without any).');
const visitorAnalyticsCountsSchema = visitorCountsSchema.extend({
  answeredShare: z.number().nullable().describe('answered / questions, to three decimals; null without questions.'),
});

export const visitorUsageSchema = z
  .strictObject({
    totals: visitorCountsSchema,
    byWidget: z.array(z.strictObject({ widgetId: z.string(), ...visitorCountsSchema.shape })),
    summary: visitorAnalyticsCountsSchema
      .extend({
        sessions: z.number().int().describe('Visitor sessions (conversations) with a question in the period, of those kept.'),
        answerTimeMs: answerTimeSchema,
      })
      .describe('The totals with sessions, answered share and answer times.'),
    series: z
      .array(visitorAnalyticsCountsSchema.extend({ start: z.string(), sessions: z.number().int(), answerTimeMs: answerTimeSchema }))
      .describe('Per hour or day (the `granularity`), every bucket of the range.'),
    byKnowledgeBase: z.array(visitorAnalyticsCountsSchema.extend({ knowledgeBaseId: z.string() })),
    topQuestions: z
      .array(z.strictObject({ question: z.string(), asked: z.number().int(), answered: z.number().int(), wordings: z.number().int() }))
      .describe('The most asked questions, the same question worded differently counted once (grouped by meaning), of the conversations kept.'),
    topCitedItems: z
      .array(z.strictObject({ title: z.string(), url: z.string().nullable(), cited: z.number().int() }))
      .describe('The items cited most often in answers to visitors, of the conversations kept.'),
  })
  .describe(
    "The visitor assistant's questions, answers and feedback per widget, counted under the knowledge base that answered " +
      '(so a knowledge-base filter applies). Visitors use no API key: with a `keyId` filter these are zero.',
  )
  .meta({ id: 'VisitorUsage' });

export const usageResponseSchema = z
  .strictObject({
    from: z.string(),
    to: z.string(),
    granularity: z.enum(['hour', 'day']),
    series: z.array(usageTotalsSchema.extend({ start: z.string() })),
    totals: usageTotalsSchema,
    byKey: z.array(z.strictObject({ keyId: z.string().describe('"" for work no key asked for'), totals: usageTotalsSchema })),
    byKnowledgeBase: z.array(z.strictObject({ knowledgeBaseId: z.string(), totals: usageTotalsSchema })),
    byRoute: z.array(z.strictObject({ route: z.string(), requests: z.number().int() })),
    visitors: visitorUsageSchema,
  })
  .meta({ id: 'Usage' });
