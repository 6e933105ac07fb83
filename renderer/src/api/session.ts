import type { z } from 'zod';
import type { credentialsSchema, passwordChangeSchema, SessionInfo, SetupStatus } from '../../../common/contract/admin.ts';
import { del, get, post } from './client.ts';

/** The signed-in session: `/admin/api/setup`, `/admin/api/session` and its password. */

type Credentials = z.input<typeof credentialsSchema>;

export const getSetupStatus = () => get<SetupStatus>('/setup');
/** Creates the Owner on a new install and signs them in. */
export const setUpOwner = (credentials: Credentials) => post<SessionInfo>('/setup', credentials);
export const getSession = () => get<SessionInfo>('/session');
export const signIn = (credentials: Credentials) => post<SessionInfo>('/session', credentials);
export const signOut = () => del<void>('/session');
export const changePassword = (change: z.input<typeof passwordChangeSchema>) => post<SessionInfo>('/session/password', change);
