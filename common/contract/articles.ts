import { z } from 'zod';
import { identifier } from './text-rules.ts';

export const articleListQuerySchema = z.strictObject({
  knowledgeBaseId: identifier().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(64).optional(),
});

export const articleParamsSchema = z.strictObject({
  id: z.string().regex(/^art_\d{1,15}$/, 'must be an article id like art_42'),
});

const articleFields = {
  id: z.string().describe('Stable article id (art_…).'),
  knowledgeBaseId: z.string(),
  integrationId: z.string(),
  externalId: z.string(),
  title: z.string(),
  url: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const articleSummarySchema = z.strictObject(articleFields).meta({ id: 'ArticleSummary' });
export const articleSchema = z
  .strictObject({ ...articleFields, content: z.string().describe('The content as pushed.') })
  .meta({ id: 'Article' });

export const articleListSchema = z
  .strictObject({ data: z.array(articleSummarySchema), nextCursor: z.string().nullable() })
  .meta({ id: 'ArticleList' });
