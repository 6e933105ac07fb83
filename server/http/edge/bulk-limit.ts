import type { FastifyRequest } from 'fastify';
import { ApiError } from './api-error.ts';

/**
 * Refuses a bulk request over the limit before each of its items is validated: `POST /ingest/bulk`
 * and the dashboard's import alike.
 */
export function bulkLimitCheck(bulkLimit: number) {
  return async (request: FastifyRequest) => {
    const items = (request.body as { items?: unknown } | null)?.items;
    if (Array.isArray(items) && items.length > bulkLimit) {
      throw new ApiError('too_many_items', `A bulk request takes at most ${bulkLimit} items; this one has ${items.length}.`);
    }
  };
}
