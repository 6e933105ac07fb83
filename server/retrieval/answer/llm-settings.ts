import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SettingsRepo } from '../../storage/settings-repo.ts';

/** An OpenAI-compatible chat endpoint (llama.cpp server, Ollama, LM Studio…). */
export type LlmEndpoint = { baseUrl: string; model: string; apiKey: string | null; timeoutMs: number };

export type LlmSettingsView = { baseUrl: string | null; model: string | null; hasApiKey: boolean; timeoutMs: number };
export type LlmSettingsInput = { baseUrl: string | null; model: string | null; apiKey?: string | null; timeoutMs?: number };
export type LlmDefaults = { baseUrl: string | null; model: string | null; apiKey: string | null; timeoutMs: number };

type Stored = { baseUrl: string | null; model: string | null; timeoutMs: number; apiKey: string | null };

const SETTING = 'llm_endpoint';
export const DEFAULT_LLM_TIMEOUT_MS = 30_000;

/**
 * The language model endpoint the assistant generates answers with. The environment gives the
 * initial values; once set (from the dashboard) the stored values win. The endpoint's API key is
 * stored encrypted (AES-256-GCM, key derived from the server secret) and never handed out.
 */
export class LlmSettings {
  private readonly cipherKey: Buffer;

  constructor(
    private readonly settings: SettingsRepo,
    serverSecret: Buffer,
    private readonly defaults: LlmDefaults = { baseUrl: null, model: null, apiKey: null, timeoutMs: DEFAULT_LLM_TIMEOUT_MS },
  ) {
    this.cipherKey = Buffer.from(hkdfSync('sha256', serverSecret, Buffer.alloc(0), 'localiq llm api key', 32));
  }

  get(): LlmSettingsView {
    const current = this.current();
    return { baseUrl: current.baseUrl, model: current.model, hasApiKey: current.apiKey !== null, timeoutMs: current.timeoutMs };
  }

  /**
   * Saves the settings. A stored key was given for one address: when the scheme, host or port
   * changes and the same request gives no key, the stored one is removed rather than sent to the
   * new address. Returns whether that happened.
   */
  set(input: LlmSettingsInput): { apiKeyRemoved: boolean } {
    const before = this.current();
    const baseUrl = input.baseUrl === null ? null : normalizeBaseUrl(input.baseUrl);
    const model = input.model === null ? null : input.model.trim() || null;
    const timeoutMs = input.timeoutMs ?? before.timeoutMs;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 600_000) {
      throw new RangeError('timeoutMs must be a whole number of milliseconds from 100 to 600000.');
    }
    const moved = origin(baseUrl) !== origin(before.baseUrl);
    const apiKeyRemoved = input.apiKey === undefined && moved && before.apiKey !== null;
    const apiKey = input.apiKey === undefined ? (moved ? null : before.apiKey) : input.apiKey || null;
    const stored: Stored = { baseUrl, model, timeoutMs, apiKey: apiKey === null ? null : this.encrypt(apiKey) };
    this.settings.set(SETTING, JSON.stringify(stored));
    return { apiKeyRemoved };
  }

  /** The endpoint to call, or null when none is configured (the assistant then answers extractively). */
  endpoint(): LlmEndpoint | null {
    const current = this.current();
    if (!current.baseUrl || !current.model) return null;
    return { baseUrl: current.baseUrl, model: current.model, apiKey: current.apiKey, timeoutMs: current.timeoutMs };
  }

  /** Current values with the API key in clear; only for calling the endpoint. */
  private current(): LlmDefaults {
    const raw = this.settings.get(SETTING);
    if (raw === null) return this.defaults;
    const stored = JSON.parse(raw) as Stored;
    return { ...stored, apiKey: stored.apiKey === null ? null : this.decrypt(stored.apiKey) };
  }

  private encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.cipherKey, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  private decrypt(sealed: string): string | null {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== 'v1' || !iv || !tag || data === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.cipherKey, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      // Another server secret sealed it (a restored database): treat the key as not set.
      return null;
    }
  }
}

/** Scheme, host and port of an address: what a key given for it is bound to. */
const origin = (baseUrl: string | null) => (baseUrl !== null && URL.canParse(baseUrl) ? new URL(baseUrl).origin : baseUrl);

/** An http(s) base URL without a trailing slash, e.g. http://127.0.0.1:11434/v1. */
function normalizeBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new RangeError('The base URL is not a valid URL (e.g. http://127.0.0.1:11434/v1).');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RangeError('The base URL must be http or https.');
  if (url.username || url.password) throw new RangeError('Put credentials in the API key, not in the base URL.');
  return url.href.replace(/\/+$/, '');
}
