import type { AdminUser, SessionInfo } from '../../../common/contract/admin.ts';
import type { ActiveSession } from '../../domain/sessions.ts';
import { canManage, type UserRecord } from '../../domain/users.ts';
import { isoOrNull, isoTime } from './iso-time.ts';

/** A dashboard user as the users list and the session show it. */
export function userView(user: UserRecord): AdminUser {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    createdAt: isoTime(user.createdAt),
    lastSignInAt: isoOrNull(user.lastSignInAt),
  };
}

export function sessionView(session: Pick<ActiveSession, 'user' | 'csrfToken' | 'expiresAt'>): SessionInfo {
  return {
    user: userView(session.user),
    csrfToken: session.csrfToken,
    expiresAt: isoTime(session.expiresAt),
    canManage: canManage(session.user.role),
  };
}
