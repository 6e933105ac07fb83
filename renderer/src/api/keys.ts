import type { z } from 'zod';
import type { AdminKey, CreatedKey, NewKey, rotateKeySchema } from '../../../common/contract/admin.ts';
import { get, post, seg } from './client.ts';

/** API keys: `/admin/api/keys`. A created or rotated key's value is in the answer only. */

export const listKeys = (signal?: AbortSignal) => get<{ data: AdminKey[] }>('/keys', signal);
export const createKey = (key: NewKey) => post<CreatedKey>('/keys', key);
export const revokeKey = (keyId: string) => post<AdminKey>(`/keys/${seg(keyId)}/revoke`);
export const rotateKey = (keyId: string, rotation: z.input<typeof rotateKeySchema>) => post<CreatedKey>(`/keys/${seg(keyId)}/rotate`, rotation);
