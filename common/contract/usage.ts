import { z } from 'zod';
import { identifier } from './text-rules.ts';

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or date-time');

export const usageQuerySchema = z.strictObject({
  from: isoDate.optional().describe('Start (inclusive, rounded down to the bucket). Default: 30 days (day) or 48 hours (hour) before `to`.'),
  to: isoDate.optional().describe('End (exclusive, rounded up to the bucket). Default: now.'),
  granularity: z.enum(['hour', 'day']).default('day'),
  keyId: z.string().max(64).optional().describe('Only this API key (its public id, as in the key value liq_<id>_…).'),
  knowledgeBaseId: identifier().optional(),
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

export const visitorUsageSchema = z
  .strictObject({
    totals: visitorCountsSchema,
    byWidget: z.array(z.strictObject({ widgetId: z.string(), ...visitorCountsSchema.shape })),
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
