import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from './api-keys.ts';

/** A visitor session lasts two hours; the widget then starts a new one (a new conversation). */
export const VISITOR_SESSION_MS = 2 * 60 * 60_000;
/** Far longer than any token this module makes: a longer one is refused before any hashing. */
const TOKEN_MAX_CHARS = 1_024;
const VERSION = 'v1';

export type IssuedVisitorSession = { sessionId: string; token: string; expiresAt: number };

export type VisitorTokenCheck =
  | { state: 'valid'; sessionId: string; expiresAt: number }
  /** Signed by this server for this widget and origin, but past its expiry (the session id is known). */
  | { state: 'expired'; sessionId: string }
  | { state: 'invalid' };

type Payload = { s: string; w: string; o: string; e: number };

const derive = (secret: Buffer, purpose: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));

/**
 * A visitor's session is a short-lived token signed with HMAC-SHA-256 over its session id, widget
 * id, origin and expiry, with a key derived from the server secret: checking one needs no
 * database read, a forged or altered one fails the signature, and one made for another widget or
 * on another origin is refused as invalid (not as expired), whatever its age. No cookies: the
 * widget sends it as `Authorization: Bearer <token>`.
 *
 * Visitors' addresses are kept only as an HMAC under a second derived key, so stored
 * conversations never hold a clear IP address, and the hashes of two data folders differ.
 */
export class VisitorSessions {
  private readonly signingKey: Buffer;
  private readonly addressKey: Buffer;

  constructor(
    serverSecret: Buffer,
    private readonly clock: () => number = Date.now,
  ) {
    this.signingKey = derive(serverSecret, 'localiq visitor session token');
    this.addressKey = derive(serverSecret, 'localiq visitor address');
  }

  issue(widgetId: string, origin: string): IssuedVisitorSession {
    const sessionId = `vs_${randomBase62(20)}`;
    const expiresAt = this.clock() + VISITOR_SESSION_MS;
    const payload: Payload = { s: sessionId, w: widgetId, o: origin, e: expiresAt };
    const body = `${VERSION}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
    return { sessionId, token: `${body}.${this.sign(body).toString('base64url')}`, expiresAt };
  }

  verify(token: string | null | undefined, widgetId: string, origin: string): VisitorTokenCheck {
    if (!token || token.length > TOKEN_MAX_CHARS) return { state: 'invalid' };
    const last = token.lastIndexOf('.');
    const body = token.slice(0, last);
    if (last < 0 || !body.startsWith(`${VERSION}.`)) return { state: 'invalid' };
    const signature = Buffer.from(token.slice(last + 1), 'base64url');
    const expected = this.sign(body);
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return { state: 'invalid' };
    const payload = readPayload(body.slice(VERSION.length + 1));
    if (!payload || payload.w !== widgetId || payload.o !== origin) return { state: 'invalid' };
    if (payload.e <= this.clock()) return { state: 'expired', sessionId: payload.s };
    return { state: 'valid', sessionId: payload.s, expiresAt: payload.e };
  }

  /** What is stored instead of a visitor's IP address. */
  hashAddress(address: string): string {
    return createHmac('sha256', this.addressKey).update(address).digest('hex');
  }

  private sign(body: string): Buffer {
    return createHmac('sha256', this.signingKey).update(body).digest();
  }
}

function readPayload(encoded: string): Payload | null {
  try {
    const value = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Partial<Payload>;
    const ok = typeof value.s === 'string' && typeof value.w === 'string' && typeof value.o === 'string' && Number.isFinite(value.e);
    return ok ? (value as Payload) : null;
  } catch {
    return null;
  }
}
