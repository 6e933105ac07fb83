import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { UserRecord, UserStore } from './users.ts';

/** A session lives a week after its last use, and never longer than 30 days after sign-in. */
const SESSION_IDLE_MS = 7 * 86_400_000;
const SESSION_MAX_MS = 30 * 86_400_000;
/** Writing last-seen on every request would make every read a write; once a minute is enough. */
const TOUCH_INTERVAL_MS = 60_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * The CSRF token of a session, derived from the session token by a one-way hash: the page reads it
 * from the API and sends it back in a header, which a cross-site form or image cannot do, and
 * knowing it does not reveal the (httpOnly) session token.
 */
function csrfTokenFor(sessionToken: string): string {
  return sha256(`csrf:${sessionToken}`).toString('base64url');
}

/** A stored session, found by the SHA-256 of its token (the token itself is never stored). Times in ms. */
export type SessionRecord = { userId: string; createdAt: number; lastSeenAt: number; expiresAt: number };

/** Dashboard sessions as stored (storage/session-repo.ts). */
export type SessionStore = {
  insert(tokenHash: Buffer, userId: string, now: number, expiresAt: number): void;
  get(tokenHash: Buffer): SessionRecord | null;
  touch(tokenHash: Buffer, now: number, expiresAt: number): void;
  remove(tokenHash: Buffer): void;
  removeForUser(userId: string): number;
  removeExpired(now: number): number;
};

/** `renewed`: this use moved the session's end later, so the browser's cookie should follow. */
export type ActiveSession = { user: UserRecord; csrfToken: string; expiresAt: number; renewed: boolean };

/** Neither unused for too long nor past its longest life. */
function holds(session: SessionRecord, now: number): boolean {
  return session.expiresAt > now && session.createdAt + SESSION_MAX_MS > now;
}

export class SessionService {
  constructor(
    private readonly sessions: SessionStore,
    private readonly users: Pick<UserStore, 'find'>,
    private readonly clock: () => number = Date.now,
  ) {}

  /** A fresh random token for every sign-in, so a token planted before sign-in is worth nothing. */
  create(userId: string): { token: string; csrfToken: string; expiresAt: number } {
    const now = this.clock();
    this.sessions.removeExpired(now);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = now + SESSION_IDLE_MS;
    this.sessions.insert(sha256(token), userId, now, expiresAt);
    return { token, csrfToken: csrfTokenFor(token), expiresAt };
  }

  authenticate(token: string | undefined): ActiveSession | null {
    if (!token || token.length > 128) return null;
    const hash = sha256(token);
    const session = this.sessions.get(hash);
    const now = this.clock();
    if (!session) return null;
    if (!holds(session, now)) {
      this.sessions.remove(hash);
      return null;
    }
    const user = this.users.find(session.userId);
    if (!user) return null;
    let expiresAt = session.expiresAt;
    const renewed = now - session.lastSeenAt >= TOUCH_INTERVAL_MS;
    if (renewed) {
      expiresAt = Math.min(now + SESSION_IDLE_MS, session.createdAt + SESSION_MAX_MS);
      this.sessions.touch(hash, now, expiresAt);
    }
    return { user, csrfToken: csrfTokenFor(token), expiresAt, renewed };
  }

  /**
   * Whether a session still holds, without counting as a use: a stream kept open checking it
   * would otherwise renew the session apart from the browser's cookie.
   */
  isActive(token: string): boolean {
    const session = this.sessions.get(sha256(token));
    return !!session && holds(session, this.clock()) && !!this.users.find(session.userId);
  }

  destroy(token: string): void {
    this.sessions.remove(sha256(token));
  }

  /** Signs a user out everywhere (password change, role change, removal). */
  destroyForUser(userId: string): number {
    return this.sessions.removeForUser(userId);
  }
}

/**
 * The desktop shell's one-time sign-in: it starts the server with a random token and opens its
 * window on the sign-in link. The token works once; the comparison takes the same time whatever
 * the candidate.
 */
export class DesktopSignIn {
  private expected: Buffer | null;

  constructor(token: string | null) {
    this.expected = token ? sha256(token) : null;
  }

  get available(): boolean {
    return this.expected !== null;
  }

  consume(candidate: string): boolean {
    if (!this.expected) return false;
    const ok = timingSafeEqual(sha256(candidate), this.expected);
    if (ok) this.expected = null;
    return ok;
  }
}
