import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../../domain/api-keys.ts';
import type { ApiKeyService, AuthResult } from '../../domain/api-key-service.ts';
import type { Scope } from '../../../common/contract/scopes.ts';
import { ApiError } from './api-error.ts';
import type { RateLimiter } from './rate-limiter.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope an API key needs for this route; routes without it take no API key. */
    scope?: Scope;
  }
  interface FastifyRequest {
    apiKey: ApiKeyRecord | null;
  }
}

/**
 * A refused request costs its key one request more for each this many bytes of body the server
 * read: a key sending 10 MB bodies that are refused (built to be costly, or just wrong) spends its
 * rate in a few requests and waits, instead of taking the server's time from every other key.
 */
const REFUSED_BODY_BYTES_PER_REQUEST = 32 * 1024;

type Waiting = { request: FastifyRequest; scope: Scope; done: (error?: Error) => void };

/**
 * Authenticates `x-api-key` on every route that declares a scope, before the body is read, then
 * charges the key's rate limit. Knowledge-base restrictions need the body or path and are checked
 * by the routes with `assertKnowledgeBaseAccess`.
 *
 * Requests that reached this hook in the same turn of the event loop are checked together right
 * after it (setImmediate), against one read of the keys' version taken after every one of them
 * was received: a key revoked before a request was sent, by this process or another, is refused
 * as surely as with one read per request.
 */
export function registerApiKeyAuth(app: FastifyInstance, keys: ApiKeyService, limiter: RateLimiter): void {
  app.decorateRequest('apiKey', null);
  let waiting: Waiting[] = [];
  const checkWaiting = () => {
    const batch = waiting;
    waiting = [];
    const values = batch.map(({ request }) => headerValue(request));
    let results: AuthResult[];
    try {
      results = keys.authenticateMany(values.filter((value) => value !== null));
    } catch (error) {
      for (const { done } of batch) done(error as Error);
      return;
    }
    let next = 0;
    batch.forEach(({ request, scope, done }, i) => {
      try {
        request.apiKey = authorize(request, scope, values[i] === null ? null : results[next++]!, limiter);
        done();
      } catch (error) {
        done(error as Error);
      }
    });
  };
  // A callback hook, not an async one: it runs on every request and needs no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return done();
    if (waiting.push({ request, scope, done }) === 1) setImmediate(checkWaiting);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const refused = reply.statusCode >= 400 && reply.statusCode < 500 && reply.statusCode !== 429;
    if (refused && request.apiKey && request.bodyBytes >= REFUSED_BODY_BYTES_PER_REQUEST) {
      limiter.charge(request.apiKey.id, Math.floor(request.bodyBytes / REFUSED_BODY_BYTES_PER_REQUEST));
    }
    done();
  });
}

function headerValue(request: FastifyRequest): string | null {
  const header = request.headers['x-api-key'];
  if (header === undefined || header === '') return null;
  return Array.isArray(header) ? header.join(',') : header;
}

/** Whether a request announces a body (which a refusal before reading it leaves unread). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The key of a request, given the check of its header (null when it had none). */
function authorize(request: FastifyRequest, scope: Scope, result: AuthResult | null, limiter: RateLimiter): ApiKeyRecord {
  if (result === null) {
    throw new ApiError('missing_api_key', 'Send an API key in the x-api-key header.');
  }
  if (!result.ok) {
    throw result.reason === 'expired'
      ? new ApiError('api_key_expired', 'This API key has expired; create or rotate a key in the dashboard.')
      : new ApiError('invalid_api_key', 'This API key is not valid (unknown, malformed or revoked).');
  }
  if (!result.key.scopes.includes(scope)) {
    throw new ApiError('insufficient_scope', `This API key lacks the scope "${scope}" that this endpoint needs.`, [
      { path: 'x-api-key', message: `needs scope ${scope}` },
    ]);
  }
  const retryAfter = limiter.take(result.key.id);
  if (retryAfter > 0) {
    // Refused before its body is read: the connection is closed rather than kept open, since
    // keeping it would mean reading (and throwing away) a body of up to the body limit first.
    throw new ApiError('rate_limited', `Too many requests for this API key; retry in ${retryAfter}s.`, undefined, {
      'retry-after': String(retryAfter),
      ...(hasBody(request) ? { connection: 'close' } : {}),
    });
  }
  return result.key;
}

/** Refuses the request when the key is restricted to knowledge bases that do not include these. */
export function assertKnowledgeBaseAccess(request: FastifyRequest, knowledgeBaseIds: Iterable<string>, paths?: string[]): void {
  const allowed = request.apiKey?.knowledgeBaseIds;
  if (!allowed) return;
  const ids = [...knowledgeBaseIds];
  const denied = ids
    .map((id, index) => ({ id, path: paths?.[index] ?? 'knowledgeBaseId' }))
    .filter(({ id }) => !allowed.includes(id));
  if (denied.length) {
    throw new ApiError(
      'knowledge_base_forbidden',
      'This API key is restricted to other knowledge bases.',
      denied.map(({ id, path }) => ({ path, message: `knowledge base "${id}" is not allowed for this key` })),
    );
  }
}

/** The knowledge bases a restricted key may see, or null for all. */
export function allowedKnowledgeBases(request: FastifyRequest): string[] | null {
  return request.apiKey?.knowledgeBaseIds ?? null;
}
