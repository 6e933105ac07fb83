import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionInfo } from '../../../common/contract/admin.ts';
import type { SessionService } from '../../domain/sessions.ts';
import type { UserRecord, UserService } from '../../domain/users.ts';
import { setSessionCookie } from './admin-auth.ts';
import { sessionView } from './user-view.ts';

/**
 * Signs a user in to the dashboard: a new session on every sign-in (the old one, if any, ends: no
 * session fixation), its cookie set. Setup, the password's sign-in and the desktop link share it.
 */
export function signIn(request: FastifyRequest, reply: FastifyReply, user: UserRecord, { users, sessions }: { users: UserService; sessions: SessionService }): SessionInfo {
  if (request.adminSession) sessions.destroy(request.adminSession.token);
  const created = sessions.create(user.id);
  users.recordSignIn(user.id);
  setSessionCookie(request, reply, created.token, created.expiresAt);
  return sessionView({ user, csrfToken: created.csrfToken, expiresAt: created.expiresAt });
}
