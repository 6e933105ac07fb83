import { timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CSRF_HEADER, SESSION_COOKIE } from '../../../common/contract/admin.ts';
import type { ActiveSession, SessionService } from '../../domain/sessions.ts';
import { canManage } from '../../domain/users.ts';
import { ApiError } from './api-error.ts';

/** Who may call an admin route: anyone (setup, sign-in), any signed-in user, Owner/Admin, or the Owner. */
export type AdminAccess = 'public' | 'member' | 'manager' | 'owner';

declare module 'fastify' {
  interface FastifyContextConfig {
    admin?: AdminAccess;
  }
  interface FastifyRequest {
    adminSession: (ActiveSession & { token: string }) | null;
  }
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A browser names the page that made a request in Origin (and Sec-Fetch-Site). Requests from
 * another site are refused outright; tools without a browser send neither and are judged by the
 * session and CSRF header alone.
 */
function assertSameOrigin(request: FastifyRequest): void {
  if (request.headers['sec-fetch-site'] === 'cross-site') {
    throw new ApiError('forbidden', 'Cross-site requests to the admin API are refused.');
  }
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    host = null;
  }
  if (!host || host !== request.headers.host) {
    throw new ApiError('forbidden', 'This request comes from another origin and is refused.');
  }
}

/** This machine's own names, which a browser on the network may use for the dashboard. */
const MACHINE_NAMES = new Set([os.hostname().toLowerCase(), `${os.hostname().toLowerCase()}.local`]);

/**
 * A web page can point a name of its own at 127.0.0.1 (DNS rebinding) and then talk to LocalIQ as
 * a page of the same origin: on a fresh install it could create the Owner. The admin API answers
 * only under an IP address, localhost, or this machine's name, which no such page controls.
 */
function assertKnownHost(request: FastifyRequest): void {
  const host = request.headers.host ?? '';
  const name = (host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.split(':')[0]!).toLowerCase();
  if (net.isIP(name) || name === 'localhost' || name.endsWith('.localhost') || MACHINE_NAMES.has(name)) return;
  throw new ApiError('forbidden', `The dashboard answers at an IP address, localhost or this machine's name (${os.hostname()}), not at "${name}".`);
}

/**
 * The admin API's gate, run before the body is read: never an API key; same origin only; a valid
 * session for every non-public route; on state-changing requests the session's CSRF token in a
 * custom header (a cross-site form cannot set headers, and a cross-site script cannot read the
 * token). Public state-changing routes (setup, sign-in) still need the header, with any value,
 * which a plain cross-site form cannot send.
 */
export function registerAdminAuth(app: FastifyInstance, sessions: SessionService): void {
  app.decorateRequest('adminSession', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (request.headers['x-api-key'] !== undefined) {
      throw new ApiError(
        'forbidden',
        'The admin API does not accept API keys. API keys work on the integration API; sign in to the dashboard instead.',
      );
    }
    assertKnownHost(request);
    assertSameOrigin(request);
    const access = request.routeOptions.config.admin ?? 'member';
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? sessions.authenticate(token) : null;
    request.adminSession = session && token ? { ...session, token } : null;
    // The cookie expired 7 days after sign-in however much the dashboard was used: it follows
    // the session's end each time that moves (at most once a minute).
    if (session?.renewed && token) setSessionCookie(request, reply, token, session.expiresAt);

    const changing = STATE_CHANGING.has(request.method);
    const header = request.headers[CSRF_HEADER];
    const csrf = Array.isArray(header) ? header[0] : header;
    if (access === 'public') {
      if (changing && !csrf) throw new ApiError('forbidden', `Send the ${CSRF_HEADER} header with this request.`);
      return;
    }
    if (!request.adminSession) throw new ApiError('not_signed_in', 'Sign in to the dashboard first.');
    if (changing && (!csrf || !sameText(csrf, request.adminSession.csrfToken))) {
      throw new ApiError('forbidden', `The ${CSRF_HEADER} header is missing or does not match this session; reload the page.`);
    }
    if (access === 'manager' && !canManage(request.adminSession.user.role)) {
      throw new ApiError('forbidden', 'Only the Owner and Admins can do this; Members can look but not change.');
    }
    if (access === 'owner' && request.adminSession.user.role !== 'owner') {
      throw new ApiError('forbidden', 'Only the Owner can do this.');
    }
  });
}

/** The signed-in session of a non-public route (the hook guarantees it). */
export function sessionOf(request: FastifyRequest): ActiveSession & { token: string } {
  if (!request.adminSession) throw new ApiError('not_signed_in', 'Sign in to the dashboard first.');
  return request.adminSession;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, expiresAt: number): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.protocol === 'https',
    expires: new Date(expiresAt),
  });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https' });
}
