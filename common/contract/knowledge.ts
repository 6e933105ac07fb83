import { z } from 'zod';
import { sourceTypeSchema } from './ingest.ts';
import { jobSchema } from './jobs.ts';
import { identifier } from './text-rules.ts';

export const SEARCH_MODES = ['keyword', 'semantic', 'hybrid'] as const;

export const knowledgeBaseParamsSchema = z.strictObject({ knowledgeBaseId: identifier() });

export const knowledgeBaseSchema = z
  .strictObject({
    id: z.string(),
    itemCount: z.number().int(),
    chunkCount: z.number().int(),
    pendingJobs: z.number().int().describe('Jobs queued or processing for this knowledge base.'),
    createdAt: z.string(),
  })
  .meta({ id: 'KnowledgeBase' });

export const knowledgeBaseListSchema = z.strictObject({ data: z.array(knowledgeBaseSchema) });

export const itemSummarySchema = z
  .strictObject({
    knowledgeBaseId: z.string(),
    integrationId: z.string(),
    externalId: z.string(),
    sourceType: sourceTypeSchema,
    title: z.string(),
    url: z.string().nullable(),
    updatedAt: z.string(),
  })
  .meta({ id: 'ItemSummary' });

export const itemListQuerySchema = z.strictObject({
  sourceType: sourceTypeSchema.optional(),
  integrationId: identifier().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(64).optional(),
});

export const itemListSchema = z
  .strictObject({ data: z.array(itemSummarySchema.extend({ chunkCount: z.number().int() })), nextCursor: z.string().nullable() })
  .meta({ id: 'ItemList' });

export const itemParamsSchema = z.strictObject({
  knowledgeBaseId: identifier(),
  integrationId: identifier(),
  externalId: identifier(),
});

/** Where a passage of an uploaded file is: its PDF page, or the headings above it. Absent for pushed items. */
export const passageLocation = {
  page: z.number().int().min(1).optional().describe('The PDF page the passage is on (uploaded files).'),
  section: z.string().optional().describe('The headings above the passage, "Returns › Damaged goods" (uploaded files).'),
};

export const chunkSchema = z.strictObject({
  id: z.number().int(),
  position: z.number().int(),
  text: z.string(),
  tokenCount: z.number().int(),
  ...passageLocation,
});

export const itemDetailSchema = itemSummarySchema
  .extend({
    content: z.string().describe('The content as pushed.'),
    text: z.string().describe('The normalized, searchable text.'),
    sourceData: z.record(z.string(), z.unknown()).nullable(),
    contentHash: z.string(),
    embedder: z.string(),
    createdAt: z.string(),
    chunks: z.array(chunkSchema),
    latestJob: jobSchema.nullable(),
  })
  .meta({ id: 'Item' });

export const searchRequestSchema = z
  .strictObject({
    query: z.string().trim().min(1).max(1_000),
    mode: z.enum(SEARCH_MODES).default('hybrid'),
    topK: z.number().int().min(1).max(100).default(10),
    sourceTypes: z.array(sourceTypeSchema).min(1).optional(),
    passages: z.number().int().min(0).max(10).default(3).describe('Best passages returned per item.'),
  })
  .meta({ id: 'SearchRequest' });

export const passageSchema = z.strictObject({
  chunkId: z.number().int(),
  position: z.number().int(),
  text: z.string(),
  score: z.number(),
  ...passageLocation,
});

export const searchResponseSchema = z
  .strictObject({
    query: z.string(),
    mode: z.enum(SEARCH_MODES).describe('The mode used: semantic parts fall back to keyword while no model is ready.'),
    results: z.array(itemSummarySchema.extend({ score: z.number(), passages: z.array(passageSchema) })),
    tookMs: z.number(),
    correctedQuery: z
      .string()
      .optional()
      .describe(
        'Present when a word of the query is in no item of the knowledge base and was searched as a word that is ' +
          '(typo tolerance): the query as it was read, to show as "Showing results for …".',
      ),
  })
  .meta({ id: 'SearchResponse' });

/** A knowledge base's search settings (the dashboard's admin API reads and changes them). */
export const knowledgeBaseSettingsSchema = z
  .strictObject({
    typoTolerance: z
      .boolean()
      .describe('Keyword search also finds words one or two typos away from a rare or unknown query word (default true).'),
  })
  .meta({ id: 'KnowledgeBaseSettings' });
export type KnowledgeBaseSettings = z.infer<typeof knowledgeBaseSettingsSchema>;
export const knowledgeBaseSettingsUpdateSchema = knowledgeBaseSettingsSchema.partial();
export const DEFAULT_KNOWLEDGE_BASE_SETTINGS: KnowledgeBaseSettings = { typoTolerance: true };
