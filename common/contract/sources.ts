import { z } from 'zod';
import { pushedIdentifier, safeText } from './text-rules.ts';

/**
 * Website sources in the admin API (`/admin/api/sources`): a site crawled into a knowledge base and
 * kept in sync. The command line (`localiq sources`) takes the same fields.
 */
export const websiteSourceInputSchema = z.strictObject({
  startUrl: safeText(2_000).min(1).describe('The address the crawl starts from (http or https).'),
  knowledgeBaseId: pushedIdentifier().describe('The knowledge base the pages go to.'),
  every: safeText(20).nullable().optional().describe('How often to sync, such as 24h or 7d (at least 1h); none for syncs on demand.'),
  maxPages: z.number().int().min(1).max(10_000).optional(),
  include: z.array(safeText(500).min(1)).max(50).optional(),
  exclude: z.array(safeText(500).min(1)).max(50).optional(),
  allowPrivateNetwork: z.boolean().optional().describe('Lets the crawl reach private and loopback addresses (an intranet site): the Owner only.'),
});
export type WebsiteSourceInputBody = z.infer<typeof websiteSourceInputSchema>;

export const websiteSourceParamsSchema = z.strictObject({ sourceId: z.string().min(1).max(64) });
export const websiteSyncParamsSchema = z.strictObject({ sourceId: z.string().min(1).max(64), syncId: z.string().min(1).max(64) });

export type AdminWebsiteSync = {
  id: string;
  state: 'running' | 'succeeded' | 'failed';
  startedAt: string;
  finishedAt: string | null;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  skipped: Array<{ url: string; reason: string }>;
  requests: number;
  bytes: number;
  error: string | null;
};

export type AdminWebsiteSource = {
  id: string;
  knowledgeBaseId: string;
  startUrl: string;
  everyHours: number | null;
  maxPages: number;
  include: string[];
  exclude: string[];
  allowPrivateNetwork: boolean;
  createdAt: string;
  lastSync: AdminWebsiteSync | null;
};
