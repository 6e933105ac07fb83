import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WIDGET_ID_PATTERN } from '../../../common/contract/widget.ts';
import { canonicalOrigin, originAllowed } from '../../domain/allowed-origins.ts';
import type { VisitorSessions } from '../../domain/visitor-sessions.ts';
import type { VisitorConversations } from '../../domain/visitor-conversations.ts';
import type { WidgetRecord, WidgetService } from '../../domain/widgets.ts';
import { ApiError } from './api-error.ts';
import { ownOrigin } from './client-address.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A visitor route that needs a visitor session (`Authorization: Bearer <token>`). 'or-expired':
     * a token past its expiry is taken too (reading the session's own handoffs on a later visit).
     */
    visitorSession?: boolean | 'or-expired';
  }
  interface FastifyRequest {
    /** Set by the origin gate on every visitor route that it let through. */
    visitor: VisitorContext | null;
  }
}

export type VisitorContext = {
  widget: WidgetRecord;
  /** The origin the request counts as coming from (canonical spelling). */
  origin: string;
  /** The visitor's session, on routes that need one. */
  sessionId: string | null;
};

export type OriginGateOptions = {
  widgets: WidgetService;
  visitorSessions: VisitorSessions;
  visitorConversations: VisitorConversations;
  trustedProxies: readonly string[];
};

const ALLOWED_HEADERS = 'content-type, authorization';
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_S = '600';

/**
 * The gate of every `/v1/widget/{widgetId}/...` route, before its body is read: the widget must
 * exist and be enabled (else 404 `widget_not_found`), and the request must come from one of its
 * allowed origins or from LocalIQ's own origin (else 403 `origin_not_allowed`, without CORS
 * headers, so the browser hides even the refusal from the page). Routes that need a session get
 * it checked here too (401 `session_invalid` / `session_expired`).
 *
 * LocalIQ's own origin (the scheme and Host it was reached at, see client-address.ts) counts as
 * allowed for every widget: it is where the hosted page `/w/{widgetId}` runs, whose requests
 * carry that origin, or none at all for a same-origin GET (then `Sec-Fetch-Site: same-origin`
 * says so). No other page can send requests with that origin from a browser.
 */
export function registerOriginGate(app: FastifyInstance, options: OriginGateOptions): void {
  app.decorateRequest('visitor', null);
  app.addHook('onRequest', (request, reply, done) => {
    try {
      request.visitor = admit(request, reply, options);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}

function admit(request: FastifyRequest, reply: FastifyReply, options: OriginGateOptions): VisitorContext {
  const { widgetId } = request.params as { widgetId?: string };
  // A disabled or deleted widget looks like no widget at all to a visitor.
  const widget = widgetId && WIDGET_ID_PATTERN.test(widgetId) ? options.widgets.forVisitors(widgetId) : null;
  reply.raw.setHeader('vary', 'Origin');
  const header = request.headers.origin;
  // The configuration's refusal is readable from any page, so the widget can say in the console
  // why it does not appear (the answer tells nothing a visitor could use); nothing else is.
  if (request.method === 'GET' && header !== undefined) reply.raw.setHeader('access-control-allow-origin', header);
  if (!widget) throw new ApiError('widget_not_found', 'No widget has this id, or it is switched off.');
  const own = ownOrigin(request, options.trustedProxies);
  let origin: string | null = null;
  if (header !== undefined) {
    if (originAllowed(header, widget.allowedOrigins) || (own !== null && canonicalOrigin(header) === own)) origin = canonicalOrigin(header);
  } else if (request.headers['sec-fetch-site'] === 'same-origin') {
    origin = own;
  }
  if (origin === null) {
    throw new ApiError('origin_not_allowed', 'This widget does not answer requests from this origin; add it to the widget\'s allowed origins.');
  }
  // Set on the raw response, so a streamed answer (which bypasses Fastify's headers) carries it too.
  if (header !== undefined) {
    reply.raw.setHeader('access-control-allow-origin', header);
    // A 429's Retry-After tells the widget how long its send button waits.
    reply.raw.setHeader('access-control-expose-headers', 'Retry-After');
  }
  if (request.method === 'OPTIONS') {
    reply.raw.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
    reply.raw.setHeader('access-control-max-age', PREFLIGHT_MAX_AGE_S);
  }
  const sessionId = request.routeOptions.config.visitorSession && request.method !== 'OPTIONS' ? session(request, widget, origin, options) : null;
  return { widget, origin, sessionId };
}

function session(request: FastifyRequest, widget: WidgetRecord, origin: string, options: OriginGateOptions): string {
  const match = /^Bearer ([^\s]+)$/.exec(request.headers.authorization ?? '');
  const check = options.visitorSessions.verify(match?.[1], widget.id, origin);
  // A returning visitor reads the shop's reply with the token of the session that asked: still
  // signed by this server for this widget and origin, so only that visitor's browser holds it.
  if (check.state === 'expired' && request.routeOptions.config.visitorSession === 'or-expired') {
    if (options.visitorConversations.wasDeleted(check.sessionId)) {
      throw new ApiError('session_invalid', 'Send a visitor session of this widget, from this origin, as Authorization: Bearer <token>.');
    }
    return check.sessionId;
  }
  if (check.state === 'expired') throw new ApiError('session_expired', 'This visitor session has expired; start a new one.');
  // A conversation the owner deleted takes its session with it. A session with no row yet is
  // valid: it is stored at its first question (public/widget/ask.ts).
  if (check.state === 'invalid' || options.visitorConversations.wasDeleted(check.sessionId)) {
    throw new ApiError('session_invalid', 'Send a visitor session of this widget, from this origin, as Authorization: Bearer <token>.');
  }
  return check.sessionId;
}
