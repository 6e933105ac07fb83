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
    indexing: z
      .enum(['text', 'complete'])
      .describe(
        'How far indexing has come: `text` while its passages wait for their vectors (keyword search, and hybrid search by its keywords, find it already), `complete` once semantic search does too.',
      ),
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

/**
 * The languages a knowledge base's keyword index can be in (ISO 639-1): each picks a Snowball
 * stemmer and stop-word list (server/domain/keyword-language.ts; docs/retrieval.md, "Languages").
 */
export const KEYWORD_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'sv'] as const;
export type KeywordLanguage = (typeof KEYWORD_LANGUAGES)[number];
/** The languages' own names, for the dashboard's selector. */
export const KEYWORD_LANGUAGE_NAMES: Record<KeywordLanguage, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  it: 'Italiano',
  nl: 'Nederlands',
  pt: 'Português',
  sv: 'Svenska',
};

/** A knowledge base's search settings (the dashboard's admin API reads and changes them). */
export const knowledgeBaseSettingsSchema = z
  .strictObject({
    typoTolerance: z
      .boolean()
      .describe('Keyword search also finds words one or two typos away from a rare or unknown query word (default true).'),
    language: z
      .enum(KEYWORD_LANGUAGES)
      .describe(
        "The language of the knowledge base's texts (default en): it picks the keyword index's stemmer, stop words and " +
          'diacritics folding. Changing it re-indexes the knowledge base in the background; the previous language answers until then.',
      ),
  })
  .meta({ id: 'KnowledgeBaseSettings' });
export type KnowledgeBaseSettings = z.infer<typeof knowledgeBaseSettingsSchema>;
export const knowledgeBaseSettingsUpdateSchema = knowledgeBaseSettingsSchema.partial();
export const DEFAULT_KNOWLEDGE_BASE_SETTINGS: KnowledgeBaseSettings = { typoTolerance: true, language: 'en' };

/** Where the keyword index of a knowledge base is: the language searches use, and a re-index under way. */
export const keywordIndexStateSchema = z
  .strictObject({
    language: z.enum(KEYWORD_LANGUAGES).describe('The language the keyword index answers in now.'),
    reindexing: z
      .strictObject({
        language: z.enum(KEYWORD_LANGUAGES),
        done: z.number().int().describe('Items of the knowledge base indexed in the new language so far.'),
        total: z.number().int().describe('Items of the knowledge base when the re-index started.'),
      })
      .nullable()
      .describe('A re-index into another language, under way in the background; null when none is.'),
  })
  .meta({ id: 'KeywordIndexState' });
export type KeywordIndexState = z.infer<typeof keywordIndexStateSchema>;

/** What the settings routes answer: the settings, and the state of the keyword index they chose. */
export const knowledgeBaseSettingsViewSchema = knowledgeBaseSettingsSchema
  .extend({ keywordIndex: keywordIndexStateSchema })
  .meta({ id: 'KnowledgeBaseSettingsView' });
export type KnowledgeBaseSettingsView = z.infer<typeof knowledgeBaseSettingsViewSchema>;
