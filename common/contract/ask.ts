import { z } from 'zod';
import { sourceTypeSchema } from './ingest.ts';
import { passageLocation, SEARCH_MODES } from './knowledge.ts';
import { LIMITS } from './limits.ts';
import { identifier, safeText } from './text-rules.ts';

/** An earlier turn of the conversation, so follow-up questions ("and on Sundays?") work. */
export const conversationTurnSchema = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: safeText(8_000).min(1),
});
export type ConversationTurn = z.infer<typeof conversationTurnSchema>;

/**
 * The page the asker is on, so "how long is this?" is answered about the item it shows: the item
 * of the knowledge base with this `externalId`, else the one whose `data.url` is this page
 * (scheme and host in any case, a trailing slash, the query and the fragment do not count). An
 * `externalId` or URL no item has is ignored: the question is answered from the whole knowledge base.
 */
export const askContextSchema = z
  .strictObject({
    url: z
      .string()
      .max(LIMITS.urlLength, `must be at most ${LIMITS.urlLength} characters`)
      .regex(/^[^\p{Cc}\s]*$/u, 'must not contain control characters or spaces')
      .pipe(z.url({ protocol: /^https?$/, hostname: z.regexes.hostname }))
      .optional()
      .describe('The address of the page the question was asked on (http or https).'),
    externalId: identifier()
      .optional()
      .describe('The external id of the item the page shows; it wins over `url`.'),
  })
  .meta({ id: 'AskContext' });
export type AskContext = z.infer<typeof askContextSchema>;

export const askRequestSchema = z
  .strictObject({
    question: safeText(2_000).trim().min(1),
    conversation: z
      .array(conversationTurnSchema)
      .max(20)
      .optional()
      .describe(
        'Earlier turns, oldest first; the question itself is not part of it. Their user turns shape what is retrieved ' +
          'only when the question refers back to them ("when are they baked?"); a configured language model reads the last six.',
      ),
    stream: z.boolean().default(false).describe('Answer with Server-Sent Events instead of one JSON body.'),
    mode: z.enum(SEARCH_MODES).default('hybrid').describe('How passages are retrieved.'),
    topK: z.number().int().min(1).max(20).default(5).describe('Items retrieved to answer from.'),
    sourceTypes: z.array(sourceTypeSchema).min(1).optional(),
    context: askContextSchema
      .optional()
      .describe(
        'The page the question is asked on. A question that points at something ("is it waterproof?") is answered from ' +
          'the item the page shows; any other is answered from the whole knowledge base with that item ranked first.',
      ),
  })
  .meta({ id: 'AskRequest' });
/** What callers send; defaults are filled in by the schema on the HTTP path. */
export type AskRequest = z.input<typeof askRequestSchema>;

export const citationSchema = z
  .strictObject({
    number: z.number().int().describe('The [n] that marks it in the answer.'),
    knowledgeBaseId: z.string(),
    integrationId: z.string(),
    externalId: z.string(),
    sourceType: sourceTypeSchema,
    title: z.string(),
    url: z.string().nullable(),
    chunkId: z.number().int(),
    passage: z.string().describe('The retrieved passage the answer cites.'),
    ...passageLocation,
  })
  .meta({ id: 'Citation' });
export type Citation = z.infer<typeof citationSchema>;

export const ANSWER_METHODS = ['extractive', 'generative'] as const;

/**
 * "Did you mean …?": one of the owner's curated questions close to a question that was not
 * answered. Asking `question` as it is gets the curated answer.
 */
export const askSuggestionSchema = z
  .strictObject({
    id: z.number().int().describe('The curated answer\'s id.'),
    question: z.string().describe('The curated question, to show and to ask as it is.'),
  })
  .meta({ id: 'AskSuggestion' });
export type AskSuggestion = z.infer<typeof askSuggestionSchema>;

export const askResponseSchema = z
  .strictObject({
    question: z.string(),
    answer: z.string(),
    answered: z.boolean().describe('False when the knowledge base does not hold the answer; the answer then says so.'),
    method: z.enum(ANSWER_METHODS),
    fallbackReason: z
      .string()
      .nullable()
      .describe('Why the configured language model was not used for this answer (timeout, endpoint error), else null.'),
    citations: z.array(citationSchema),
    tookMs: z.number(),
    correctedQuery: z
      .string()
      .optional()
      .describe('Present when a word of the question is in no item of the knowledge base and was read as one that is: the question as read.'),
    source: z
      .enum(['owner'])
      .optional()
      .describe('"owner" when the answer is one of the owner\'s curated answers, given as written (no retrieval, no citations); absent otherwise.'),
    suggestions: z
      .array(askSuggestionSchema)
      .max(3)
      .optional()
      .describe(
        'Present only when the question was not answered (`answered: false`) and up to 3 of the owner\'s curated questions ' +
          'are close to it, best first ("Did you mean …?"); asking one as it is gets its curated answer.',
      ),
  })
  .meta({ id: 'AskResponse' });
export type AskResponse = z.infer<typeof askResponseSchema>;

/**
 * Server-Sent Events of a streamed answer, in order: `answer` (text deltas), possibly
 * `fallback` (the text so far is void; the extractive answer follows), `citations`, `done`
 * (the whole response without streaming), or `error` instead of `done`.
 */
export type AskEvent =
  | { type: 'answer'; text: string }
  | { type: 'fallback'; reason: string }
  | { type: 'citations'; citations: Citation[] }
  | { type: 'done'; response: AskResponse }
  | { type: 'error'; code: string; message: string };
