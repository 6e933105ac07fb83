import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { errorSchema } from '../../../common/contract/errors.ts';
import { widgetIdSchema } from '../../../common/contract/widget.ts';
import type { LimitRefusal } from '../../domain/visitor-limits.ts';
import { ApiError } from './api-error.ts';
import type { VisitorContext } from './origin-gate.ts';

/** What every `/v1/widget/{widgetId}/...` route shares (public/widget/). */

/** A question, ten earlier turns of up to 4,000 characters each, escaped as JSON: 256 KB is ample. */
export const VISITOR_BODY_LIMIT = 256 * 1024;

export const visitorParams = z.strictObject({ widgetId: widgetIdSchema });
export const visitorTags = ['visitor'];
export const originErrors = { 403: errorSchema, 404: errorSchema, 429: errorSchema } as const;

/** The gate let the request through, so it has its visitor context. */
export const visitorOf = (request: FastifyRequest): VisitorContext => request.visitor!;

/** A visitor's limit reached (VisitorLimits), in the error shape with Retry-After. */
export function refuse(refusal: LimitRefusal): never {
  const message =
    refusal.code === 'daily_limit_reached'
      ? 'This widget has answered as many questions as it may today; it answers again after midnight (UTC).'
      : `Too many requests (${refusal.limit} limit); retry in ${refusal.retryAfterSeconds}s.`;
  throw new ApiError(refusal.code, message, undefined, { 'retry-after': String(refusal.retryAfterSeconds) });
}

/** The CORS preflight of `/v1/widget/{widgetId}/{path}`: answered (204) only for an allowed origin, which the gate has checked. */
export function preflight(app: FastifyInstance, path: string, methods: string): void {
  app.options(`/v1/widget/:widgetId/${path}`, { schema: { hide: true } }, async (_request, reply) => {
    reply.raw.setHeader('access-control-allow-methods', methods);
    return reply.code(204).send();
  });
}
