import type { z } from 'zod';
import { ADMIN_PREFIX, type adminItemListQuerySchema, type AdminItemDetail, type AdminItemSummary, type AdminOriginal } from '../../../common/contract/admin.ts';
import type { JobView } from '../../../common/contract/jobs.ts';
import { del, get, postForm, queryString, seg } from './client.ts';

/** The items of a knowledge base and their uploaded files: `/admin/api/knowledge-bases/{kb}/items` and `…/files`. */

export type ItemIdentity = { knowledgeBaseId: string; integrationId: string; externalId: string };

/** When and by whom an item was deleted (a key, or a dashboard user); null unless it was. */
export type ItemDeletion = { at: string; byKey: { id: string; name: string | null; prefix: string } | null; byUser: string | null } | null;

/** An item as the admin API answers: indexed with its chunks, or gone with who deleted it and its jobs. */
export type ItemDetailResponse =
  | (AdminItemDetail & { indexed: true })
  | ({ indexed: false; deleted: ItemDeletion; jobs: JobView[] } & ItemIdentity);

export type ItemPage = { data: AdminItemSummary[]; nextCursor: string | null };

const itemPath = (item: ItemIdentity) => `/knowledge-bases/${seg(item.knowledgeBaseId)}/items/${seg(item.integrationId)}/${seg(item.externalId)}`;

export const listItems = (knowledgeBaseId: string, query: z.input<typeof adminItemListQuerySchema>, signal?: AbortSignal) =>
  get<ItemPage>(`/knowledge-bases/${seg(knowledgeBaseId)}/items${queryString(query)}`, signal);
export const getItem = (item: ItemIdentity, signal?: AbortSignal) => get<ItemDetailResponse>(itemPath(item), signal);
export const deleteItem = (item: ItemIdentity) => del<void>(itemPath(item));

/** Where the dashboard serves the item's uploaded file; a PDF opens at `#page=N` in the browser's viewer. */
export function originalUrl(item: ItemIdentity, original: AdminOriginal, page?: number): string {
  return `${ADMIN_PREFIX}${itemPath(item)}/original${page !== undefined && original.kind === 'pdf' ? `#page=${page}` : ''}`;
}

/** Uploads one file (the form's `file` and `externalId`), reporting the bytes sent; answers the jobs it queued. */
export const uploadFile = (knowledgeBaseId: string, form: FormData, onProgress: (sent: number, total: number) => void, signal?: AbortSignal) =>
  postForm<{ jobIds: string[] }>(`/knowledge-bases/${seg(knowledgeBaseId)}/files`, form, onProgress, signal);
