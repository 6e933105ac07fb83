import { z } from 'zod';
import { LIMITS } from './limits.ts';
import { pushedIdentifier, safeText } from './text-rules.ts';

export const SOURCE_TYPES = ['PRODUCT', 'ARTICLE', 'PAGE', 'SERVICE', 'PERSON'] as const;
export const sourceTypeSchema = z.enum(SOURCE_TYPES);
export type SourceType = z.infer<typeof sourceTypeSchema>;

export const PRIORITIES = ['high', 'low'] as const;

const sourceDataSchema = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    // A number literal beyond double range (1e400) parses as Infinity, which JSON stores as null:
    // refused rather than silently changed.
    let outOfRange = false;
    const json = JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'number' && !Number.isFinite(v)) outOfRange = true;
      return v;
    });
    if (outOfRange) ctx.addIssue({ code: 'custom', message: 'must not hold a number beyond the range of a double (such as 1e400)' });
    if (new TextEncoder().encode(json).length > LIMITS.sourceDataBytes) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${LIMITS.sourceDataBytes} bytes as JSON` });
    }
    if (json.includes('\\u0000')) ctx.addIssue({ code: 'custom', message: 'must not contain NUL characters' });
  })
  .describe('Free-form object carried with the item (price, sku, brand, attributes…).');

// Checked before the URL parser, which would quietly trim spaces, drop tabs and line breaks and
// percent-encode other control characters: such an address is refused rather than changed.
const urlSchema = z
  .string()
  .regex(/^[^\p{Cc}\s]*$/u, 'must not contain control characters or spaces')
  .pipe(z.url({ protocol: /^https?$/, hostname: z.regexes.hostname }).max(LIMITS.urlLength))
  .describe('Address of the item at its source (http or https).');

export const itemDataSchema = z.strictObject({
  title: safeText(LIMITS.titleLength).describe('Title of the item.'),
  content: safeText(
    LIMITS.contentLength,
    `must be at most ${LIMITS.contentLength} characters, what one item may cost to index: send a longer document as several items (one per chapter or page)`,
  )
    .min(1)
    .describe(`Text that becomes searchable (plain text or HTML), at most ${LIMITS.contentLength} characters.`),
  url: urlSchema.optional(),
  sourceData: sourceDataSchema.optional(),
  hash: safeText(LIMITS.hashLength)
    .min(1)
    .optional()
    .describe('Caller-supplied content hash; an unchanged hash skips reprocessing.'),
});

export const ingestOptionsSchema = z.strictObject({
  forceRefresh: z.boolean().optional().describe('Reprocess even when the hash is unchanged.'),
  priority: z.enum(PRIORITIES).optional().describe('`high` is processed before normal, normal before `low`.'),
});

export const ingestItemSchema = z
  .strictObject({
    integrationId: pushedIdentifier().describe('Identifies the integration that pushes the item.'),
    knowledgeBaseId: pushedIdentifier().describe('Target knowledge base; created on first use.'),
    sourceType: sourceTypeSchema,
    externalId: pushedIdentifier().describe("Identifier of the item in the caller's own system."),
    data: itemDataSchema,
    options: ingestOptionsSchema.optional(),
  })
  .meta({ id: 'IngestItem' });
export type IngestItem = z.infer<typeof ingestItemSchema>;

export const bulkIngestSchema = z.strictObject({
  items: z.array(ingestItemSchema).min(1, 'must contain at least one item'),
});

export const jobAckSchema = z
  .strictObject({
    status: z.literal('queued'),
    jobId: z.string().describe('integrationId + "-" + externalId'),
  })
  .meta({ id: 'JobAcknowledgement' });

export const bulkAckSchema = z
  .strictObject({
    status: z.literal('queued'),
    jobCount: z.number().int().describe('Number of distinct jobs created or updated.'),
    estimatedTime: z.string().regex(/^\d+s$/).describe('Estimated time until these jobs are processed, e.g. "12s".'),
    jobIds: z.array(z.string()).describe('One job identifier per item, in request order.'),
  })
  .meta({ id: 'BulkAcknowledgement' });
