import { z } from 'zod';

/** Every error the API returns has this shape (contract §3). */
export const ERROR_CODES = {
  missing_api_key: 401,
  invalid_api_key: 401,
  api_key_expired: 401,
  insufficient_scope: 403,
  knowledge_base_forbidden: 403,
  invalid_body: 400,
  invalid_query: 400,
  invalid_json: 400,
  too_many_items: 400,
  /** Broken HTTP framing, refused by the HTTP parser before any route runs. */
  malformed_request: 400,
  request_timeout: 408,
  headers_too_large: 431,
  ambiguous_job_id: 409,
  job_not_retryable: 409,
  unsupported_media_type: 415,
  payload_too_large: 413,
  not_found: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  /** The disk holding the data folder is full: nothing of the request was stored. */
  insufficient_storage: 507,
  // The dashboard's admin API (session cookie).
  not_signed_in: 401,
  forbidden: 403,
  conflict: 409,
  // The visitor assistant's public side (common/contract/widget.ts).
  origin_not_allowed: 403,
  widget_not_found: 404,
  session_invalid: 401,
  session_expired: 401,
  daily_limit_reached: 429,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

export const errorDetailSchema = z.strictObject({
  path: z.string().describe('Dotted path of the offending field, e.g. items.3.data.title'),
  message: z.string(),
});
export type ErrorDetail = z.infer<typeof errorDetailSchema>;

export const errorSchema = z
  .strictObject({
    statusCode: z.number().int(),
    code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    details: z.array(errorDetailSchema).optional(),
    requestId: z.string(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorSchema>;

/**
 * An error answer as a client of the API receives it (the dashboard, the import command): the
 * status and the error shape's code, message and details.
 */
export class ErrorAnswer extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Array<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}
