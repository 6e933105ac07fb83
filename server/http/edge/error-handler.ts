import { randomBytes } from 'node:crypto';
import { STATUS_CODES as HTTP_REASONS } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { type ErrorBody, type ErrorCode, type ErrorDetail } from '../../../common/contract/errors.ts';
import { limitSize } from '../../../common/contract/limits.ts';
import { Refusal, type RefusalKind } from '../../domain/errors.ts';
import { isDiskFull } from '../../domain/disk-condition.ts';
import { ApiError } from './api-error.ts';

/** Fastify's own error codes that the contract names differently. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_body',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  insufficient_storage:
    "The disk that holds LocalIQ's data folder is full, so nothing of this request was stored. Free space on that disk (or move the data folder to a larger one), then send it again.",
  payload_too_large: 'The request body is larger than the server accepts.',
  unsupported_media_type: 'Send the body as JSON with Content-Type: application/json.',
  internal_error: 'Something went wrong on the server. The request id identifies it in the server log.',
};

function sendError(reply: FastifyReply, request: FastifyRequest, error: ApiError): FastifyReply {
  const body: ErrorBody = {
    statusCode: error.statusCode,
    code: error.code,
    message: error.message,
    ...(error.details?.length ? { details: error.details } : {}),
    requestId: request.id,
  };
  return reply.code(error.statusCode).headers(error.headers).type('application/json; charset=utf-8').send(body);
}

type Issue = { path: string; keyword: string; message: string; params: Record<string, unknown> };

/** "knowledge_base_id", "KnowledgeBaseID" and "knowledgeBaseId" alike, for suggesting a field. */
const fieldKey = (name: string) => name.toLowerCase().replace(/[_-]/g, '');
const joinPath = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);
const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('.')));

/** Most problems listed in one answer; a body with thousands of them gets these and their count. */
export const MAX_DETAILS = 50;

/**
 * Each problem where it is: a missing field says it is required, and an unknown field is named by
 * its own path, with the missing field it most likely meant (`knowledgebaseId`, `external_id`).
 * Only the first MAX_DETAILS are written out, so the answer stays small whatever the body holds.
 */
function validationDetails(error: FastifyError): { details: ErrorDetail[]; total: number } {
  const issues: Issue[] = (error.validation ?? []).map((issue) => ({
    path: issue.instancePath.replace(/^\//, '').replaceAll('/', '.'),
    keyword: issue.keyword,
    message: issue.message ?? 'is invalid',
    params: issue.params as Record<string, unknown>,
  }));
  const isMissing = (issue: Issue) => issue.keyword === 'invalid_type' && / received undefined$/.test(issue.message);
  const missing = issues.filter(isMissing).map((issue) => issue.path);
  const details: ErrorDetail[] = [];
  let total = 0;
  const add = (detail: () => ErrorDetail) => {
    if (++total <= MAX_DETAILS) details.push(detail());
  };
  for (const issue of issues) {
    if (isMissing(issue)) add(() => ({ path: issue.path, message: `is required (${String(issue.params.expected)})` }));
    else if (issue.keyword !== 'unrecognized_keys' || !Array.isArray(issue.params.keys)) add(() => ({ path: issue.path, message: issue.message }));
    else {
      for (const key of issue.params.keys as string[]) {
        add(() => {
          const meant = missing.find((path) => parentOf(path) === issue.path && fieldKey(path.slice(path.lastIndexOf('.') + 1)) === fieldKey(key));
          const hint = meant ? `; did you mean "${meant.slice(meant.lastIndexOf('.') + 1)}"?` : '';
          return { path: joinPath(issue.path, key), message: `is not a field here${hint}` };
        });
      }
    }
  }
  return { details, total };
}

/** The contract's error code of each kind of the domain's refusals: the one place they are mapped. */
const REFUSAL_CODES: Record<RefusalKind, ErrorCode> = {
  invalid_input: 'invalid_body',
  invalid_query: 'invalid_query',
  not_found: 'not_found',
  forbidden: 'forbidden',
  conflict: 'conflict',
};

/** Turns anything thrown in a request into the contract's error shape; 5xx never leak internals. */
function toApiError(error: FastifyError, bodyLimitBytes?: number): ApiError {
  if (error instanceof ApiError) return error;
  // The static folders (dashboard, API docs) refuse a path that climbs out of them or is not in
  // canonical form: to the caller that is a path with nothing at it.
  if (error.code === 'FST_STATIC_FORBIDDEN_PATH') return new ApiError('not_found', 'Nothing is found at this path.');
  if (isDiskFull(error)) return new ApiError('insufficient_storage', MESSAGES.insufficient_storage!);
  if (error instanceof Refusal) {
    const details = error.field ? [{ path: error.field, message: error.message }] : undefined;
    return new ApiError(REFUSAL_CODES[error.kind], error.summary ?? error.message, details);
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext;
    const code: ErrorCode = where === 'querystring' || where === 'params' ? 'invalid_query' : 'invalid_body';
    const { details, total } = validationDetails(error as FastifyError);
    const label = where === 'params' ? 'path' : where === 'querystring' ? 'query string' : 'body';
    const listed = total > details.length ? `the first ${details.length} are in details` : 'see details';
    return new ApiError(code, `The request ${label} is invalid: ${total} problem(s), ${listed}.`, details);
  }
  const mapped = (error.code && FASTIFY_CODES[error.code]) || STATUS_CODES[error.statusCode ?? 500];
  if (mapped === 'payload_too_large' && bodyLimitBytes) {
    return new ApiError(mapped, `The request body is larger than the ${limitSize(bodyLimitBytes)} the server accepts; send a large bulk as several requests.`);
  }
  if (mapped && (error.statusCode ?? 500) < 500) {
    return new ApiError(mapped, MESSAGES[mapped] ?? error.message);
  }
  return new ApiError('internal_error', MESSAGES.internal_error!);
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * No route answers this method and path: 405 naming the methods the path takes, if it takes any.
 * A route that takes this method but found nothing (a file missing from a static folder) is a 404.
 */
function noRoute(app: FastifyInstance, request: FastifyRequest): ApiError {
  const path = request.url.split('?')[0]!;
  if (app.findRoute({ method: request.method as HTTPMethods, url: path })) return new ApiError('not_found', `Nothing is found at ${path}.`);
  const allowed = METHODS.filter((method) => method !== request.method && app.findRoute({ method, url: path }));
  if (allowed.length > 0) {
    const allow = allowed.join(', ');
    return new ApiError('method_not_allowed', `${path} does not take ${request.method}; it takes ${allow}.`, undefined, { allow });
  }
  return new ApiError('not_found', `No route for ${request.method} ${path}.`);
}

/** `onDiskFull` hears of each request refused because the disk is full. */
export function registerErrorHandling(app: FastifyInstance, onDiskFull: () => void = () => {}): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // Bodies are parsed even on unknown routes; the missing route is the more useful answer.
    const apiError = request.is404 ? noRoute(app, request) : toApiError(error, request.routeOptions.bodyLimit);
    if (apiError.code === 'insufficient_storage') {
      onDiskFull();
      request.log.warn({ requestId: request.id, code: error.code }, 'the disk is full: request refused');
    }
    if (apiError.statusCode >= 500 && apiError.code !== 'insufficient_storage') request.log.error({ err: error, requestId: request.id }, 'request failed');
    return sendError(reply, request, apiError);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, request, noRoute(app, request)));
}

/**
 * Requests the HTTP parser refuses (ambiguous framing such as Content-Length with
 * Transfer-Encoding, bad chunks, oversized headers) never reach a route; they still get the
 * contract's error shape, then the connection is closed so nothing after them is read.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const apiError =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new ApiError('request_timeout', 'The request took too long to arrive.')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('headers_too_large', 'The request headers are larger than the server accepts.')
        : new ApiError('malformed_request', 'The request is not well-formed HTTP/1.1.');
  const requestId = `req_${randomBytes(8).toString('hex')}`;
  const body = JSON.stringify({ statusCode: apiError.statusCode, code: apiError.code, message: apiError.message, requestId } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${apiError.statusCode} ${HTTP_REASONS[apiError.statusCode]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `x-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Errors the router raises before any route runs: a path that is not valid percent-encoding, or a
 * path parameter longer than any valid one. Answered in the contract's error shape like the rest.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A path parameter is longer than any valid identifier.'
      : 'The request path is not valid percent-encoding.';
  sendError(reply, request, new ApiError('invalid_query', message, [{ path: 'path', message }]));
}
