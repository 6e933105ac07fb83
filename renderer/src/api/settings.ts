import type { AdminSettings, DiskConditionView } from '../../../common/contract/admin.ts';
import { get, put } from './client.ts';

/** The install's settings, the language model endpoint and the disk: `/admin/api/settings`, `…/settings/llm`, `…/disk`. */

export const getSettings = (signal?: AbortSignal) => get<AdminSettings>('/settings', signal);
export const getDiskCondition = (signal?: AbortSignal) => get<DiskConditionView>('/disk', signal);

// The language model's settings have no schema in common/contract (the server validates them in its route).
export type LlmView = { baseUrl: string | null; model: string | null; hasApiKey: boolean; timeoutMs: number };
/** A new endpoint; `apiKey` null removes the stored key, absent keeps it. */
export type LlmSettingsInput = { baseUrl: string | null; model: string | null; timeoutMs: number; apiKey?: string | null };
/** What saving answers: the settings, whether the stored key was removed, and the endpoint's test. */
export type LlmSaved = LlmView & { apiKeyRemoved: boolean; test: { ok: boolean; message: string } | null };

export const getLlmSettings = (signal?: AbortSignal) => get<LlmView>('/settings/llm', signal);
export const saveLlmSettings = (input: LlmSettingsInput) => put<LlmSaved>('/settings/llm', input);
