import type { AdminKey, AdminUser, MonitorSnapshot, SessionInfo } from '../../../common/contract/admin.ts';
import { type ApiKeyRecord, type ApiKeyState, displayPrefix } from '../../domain/api-keys.ts';
import type { MonitorState } from '../../domain/monitor.ts';
import type { ActiveSession } from '../../domain/sessions.ts';
import { canManage, type UserRecord } from '../../domain/users.ts';
import { toJobView } from '../edge/job-view.ts';

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function userView(user: UserRecord): AdminUser {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    createdAt: iso(user.createdAt)!,
    lastSignInAt: iso(user.lastSignInAt),
  };
}

export function sessionView(session: Pick<ActiveSession, 'user' | 'csrfToken' | 'expiresAt'>): SessionInfo {
  return {
    user: userView(session.user),
    csrfToken: session.csrfToken,
    expiresAt: iso(session.expiresAt)!,
    canManage: canManage(session.user.role),
  };
}

export function keyView(key: ApiKeyRecord & { state: ApiKeyState }): AdminKey {
  return {
    id: key.id,
    prefix: displayPrefix(key.id),
    name: key.name,
    description: key.description,
    scopes: key.scopes,
    knowledgeBaseIds: key.knowledgeBaseIds,
    createdBy: key.createdBy,
    createdAt: iso(key.createdAt)!,
    expiresAt: iso(key.expiresAt),
    lastUsedAt: iso(key.lastUsedAt),
    revokedAt: iso(key.revokedAt),
    rotatedFrom: key.rotatedFrom,
    state: key.state,
  };
}

export function monitorView(state: MonitorState): MonitorSnapshot {
  return {
    at: iso(state.at)!,
    counts: state.counts,
    queuedByPriority: state.queuedByPriority,
    processing: state.processing.map(({ job, runningMs }) => ({ ...toJobView(job), runningMs })),
    progress: state.progress,
    jobsPerSecond: state.jobsPerSecond,
    etaSeconds: state.etaSeconds,
    failures: state.failures.map(toJobView),
    recent: state.recent.map(toJobView),
  };
}
