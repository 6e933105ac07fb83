import type { z } from 'zod';
import type { usageQuerySchema, usageResponseSchema } from '../../../common/contract/usage.ts';
import { get, queryString } from './client.ts';

/** The usage report: requests, pushes and questions over time, and the website visitors: `/admin/api/usage`. */

export type UsageResponse = z.infer<typeof usageResponseSchema>;

export const getUsage = (query: z.input<typeof usageQuerySchema>, signal?: AbortSignal) => get<UsageResponse>(`/usage${queryString(query)}`, signal);
