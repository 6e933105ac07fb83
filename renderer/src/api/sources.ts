import type { z } from 'zod';
import type { AdminWebsiteSource, AdminWebsiteSync, websiteSourceInputSchema } from '../../../common/contract/sources.ts';
import { del, get, post, seg } from './client.ts';

/** Website sources, crawled into a knowledge base and kept in sync: `/admin/api/sources`. */

export const listSources = (signal?: AbortSignal) => get<{ sources: AdminWebsiteSource[] }>('/sources', signal);
export const addSource = (source: z.input<typeof websiteSourceInputSchema>) => post<AdminWebsiteSource>('/sources', source);
export const syncSource = (sourceId: string) => post<AdminWebsiteSync>(`/sources/${seg(sourceId)}/sync`);
export const removeSource = (sourceId: string) => del<void>(`/sources/${seg(sourceId)}`);
