import type { z } from 'zod';
import type { AdminUser, newUserSchema, userRoleSchema } from '../../../common/contract/admin.ts';
import { del, get, patch, post, seg } from './client.ts';

/** The dashboard's users: `/admin/api/users`. */

export const listUsers = (signal?: AbortSignal) => get<{ data: AdminUser[] }>('/users', signal);
export const addUser = (user: z.input<typeof newUserSchema>) => post<AdminUser>('/users', user);
export const setUserRole = (userId: string, change: z.input<typeof userRoleSchema>) => patch<AdminUser>(`/users/${seg(userId)}`, change);
export const removeUser = (userId: string) => del<void>(`/users/${seg(userId)}`);
