import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SessionRepo } from '../storage/session-repo.ts';
import type { UserRepo } from '../storage/user-repo.ts';
import type { UserRecord } from './users.ts';

/** A session lives a week after its last use, and never longer than 30 days after sign-in. */
export const SESSION_IDLE_MS = 7 * 86_400_000;
export const SESSION_MAX_MS = 30 * 86_400_000;
/** Writing last-seen on every request would make every read a write; once a minute is enough. */
const TOUCH_INTERVAL_MS = 60_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/**
 * The CSRF token of a session, derived from the session token by a one-way hash: the page reads it
 * from the API and sends it back in a header, which a cross-site form or image cannot do, and
 * knowing it does not reveal the (httpOnly) session token.
 */
export function csrfTokenFor(sessionToken: string): string {
  return sha256(`csrf:${sessionToken}`).toString('base64url');
}

/** `renewed`: this use moved the session's end later, so the browser's cookie should follow. */
export type ActiveSession = { user: UserRecord; csrfToken: string; expiresAt: number; renewed: boolean };

/** Neither unused for too long nor past its longest life. */
function holds(row: { created_at: number; expires_at: number }, now: number): boolean {
  return row.expires_at > now && row.created_at + SESSION_MAX_MS > now;
}

export class SessionService {
  constructor(
    private readonly sessions: SessionRepo,
    private readonly users: UserRepo,
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
    const row = this.sessions.get(hash);
    const now = this.clock();
    if (!row) return null;
    if (!holds(row, now)) {
      this.sessions.remove(hash);
      return null;
    }
    const user = this.users.find(row.user_id);
    if (!user) return null;
    let expiresAt = row.expires_at;
    const renewed = now - row.last_seen_at >= TOUCH_INTERVAL_MS;
    if (renewed) {
      expiresAt = Math.min(now + SESSION_IDLE_MS, row.created_at + SESSION_MAX_MS);
      this.sessions.touch(hash, now, expiresAt);
    }
    return { user, csrfToken: csrfTokenFor(token), expiresAt, renewed };
  }

  /**
   * Whether a session still holds, without counting as a use: a stream kept open checking it
   * would otherwise renew the session apart from the browser's cookie.
   */
  isActive(token: string): boolean {
    const row = this.sessions.get(sha256(token));
    return !!row && holds(row, this.clock()) && !!this.users.find(row.user_id);
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
