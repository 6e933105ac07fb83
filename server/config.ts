import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { FILE_LIMITS } from '../common/contract/files.ts';
import { LIMITS } from '../common/contract/limits.ts';
import type { EmbedderConfig } from './embedders/index.ts';

/** The per-user application-data folder of each OS, where LocalIQ keeps its database. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'LocalIQ');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'LocalIQ');
  return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'localiq');
}

/**
 * A whole number written in digits. Coercion alone read an empty value as 0 (LOCALIQ_PORT= in an
 * env file gave a random port) and took 1e3 or 0x1D6B.
 */
const wholeNumber = () => z.string().trim().regex(/^\d+$/, 'must be a whole number written in digits').transform(Number);
const positiveInt = wholeNumber().pipe(z.number().positive());

const envSchema = z.object({
  LOCALIQ_DATA_DIR: z.string().min(1).optional(),
  LOCALIQ_HOST: z.string().min(1).default('127.0.0.1'),
  LOCALIQ_PORT: wholeNumber().pipe(z.number().max(65_535)).default(7410),
  LOCALIQ_SECRET_STORE: z.enum(['auto', 'keychain', 'file']).default('auto'),
  LOCALIQ_BODY_LIMIT_BYTES: positiveInt.default(LIMITS.defaultBodyBytes),
  LOCALIQ_BULK_LIMIT: positiveInt.default(LIMITS.defaultBulkItems),
  /** Uploaded files (POST /knowledge-bases/{id}/files): bytes per file, per request, files per request. */
  LOCALIQ_FILE_MAX_BYTES: positiveInt.default(FILE_LIMITS.fileBytes),
  LOCALIQ_FILES_MAX_REQUEST_BYTES: positiveInt.default(FILE_LIMITS.requestBytes),
  LOCALIQ_FILES_PER_REQUEST: positiveInt.default(FILE_LIMITS.filesPerRequest),
  /**
   * Longest a file's text extraction may take, and the memory its reader (a process of its own,
   * about 100 MB before it reads a file) may hold in all, before the job fails.
   */
  LOCALIQ_EXTRACT_TIMEOUT_MS: wholeNumber().pipe(z.number().min(100).max(3_600_000)).default(120_000),
  LOCALIQ_EXTRACT_MEMORY_MB: wholeNumber().pipe(z.number().min(128).max(16_384)).default(512),
  /** Text recognition of PDF pages without a text layer (scanned pages): docs/pipeline.md#ocr. */
  LOCALIQ_OCR: z.enum(['on', 'off']).default('on'),
  /** Most characters of text one file may yield; a file with more fails (split it). */
  LOCALIQ_FILE_MAX_TEXT_CHARS: positiveInt.default(FILE_LIMITS.textCharacters),
  LOCALIQ_BODY_TIMEOUT_MS: wholeNumber().pipe(z.number().min(1_000).max(3_600_000)).default(60_000),
  /** Requests per second each API key may make on average, and the burst it may spend at once. */
  LOCALIQ_RATE_LIMIT_PER_SECOND: positiveInt.default(100),
  LOCALIQ_RATE_LIMIT_BURST: positiveInt.default(500),
  LOCALIQ_MAX_ATTEMPTS: positiveInt.default(5),
  LOCALIQ_JOB_HISTORY_DAYS: wholeNumber().pipe(z.number().max(36_500)).default(30),
  LOCALIQ_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: readable lines on a terminal, JSON lines otherwise. */
  LOCALIQ_LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** Pipeline worker threads; each loads its own copy of the model. */
  LOCALIQ_WORKERS: wholeNumber().pipe(z.number().max(16)).optional(),
  /** `use-lite` (the embedded default) or the path of a local ONNX model folder. */
  LOCALIQ_EMBEDDER: z.string().min(1).default('use-lite'),
  LOCALIQ_BATCH_JOBS: positiveInt.default(8),
  LOCALIQ_CHUNK_OVERLAP_TOKENS: wholeNumber().default(24),
  /** Set by the desktop shell: a random one-time token that signs its window in as the Owner. */
  LOCALIQ_DESKTOP_SIGN_IN_TOKEN: z.string().min(32).max(256).optional(),
  /** OpenAI-compatible chat endpoint for generated answers (initial value; the dashboard can change it). */
  LOCALIQ_LLM_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  LOCALIQ_LLM_MODEL: z.string().min(1).optional(),
  LOCALIQ_LLM_API_KEY: z.string().min(1).optional(),
  LOCALIQ_LLM_TIMEOUT_MS: wholeNumber().pipe(z.number().min(100).max(600_000)).default(30_000),
  /** The public listener for the visitor side (docs/visitor-assistant.md): off unless a port is set. */
  LOCALIQ_PUBLIC_HOST: z.string().min(1).default('127.0.0.1'),
  LOCALIQ_PUBLIC_PORT: wholeNumber().pipe(z.number().max(65_535)).optional(),
  /** Addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed. */
  LOCALIQ_TRUSTED_PROXY: z
    .string()
    .default('')
    .transform((value) => value.split(',').map((a) => a.trim()).filter(Boolean))
    .pipe(z.array(z.union([z.ipv4(), z.ipv6()], 'must be a comma-separated list of IP addresses'))),
});

/**
 * One log format per run: JSON lines (pino's records, for log collectors and files) or readable
 * lines for a person at a terminal (logging.ts writes them). `auto` is readable on a terminal and JSON otherwise.
 */
export type LogFormat = 'json' | 'pretty';

function resolveLogFormat(setting: 'auto' | LogFormat, out: { isTTY?: boolean } = process.stdout): LogFormat {
  return setting === 'auto' ? (out.isTTY ? 'pretty' : 'json') : setting;
}

export type Config = {
  dataDir: string;
  host: string;
  port: number;
  secretStore: 'auto' | 'keychain' | 'file';
  bodyLimitBytes: number;
  bulkLimit: number;
  /** Longest time a request body may take to arrive, from its first byte to its last. */
  bodyTimeoutMs: number;
  /** Upload limits of POST /knowledge-bases/{id}/files. */
  fileLimits: { fileBytes: number; requestBytes: number; filesPerRequest: number };
  /**
   * What one file's extraction may cost before its job fails (server/pipeline/extract/), and
   * whether scanned PDF pages are read by text recognition (OCR).
   */
  extraction: { timeoutMs: number; memoryMb: number; ocr: boolean; maxTextChars: number };
  rateLimit: { perSecond: number; burst: number };
  maxAttempts: number;
  /** Days a finished job is kept once a newer job of its item exists; 0 keeps every job. */
  jobHistoryDays: number;
  logLevel: string;
  logFormat: LogFormat;
  /** 0 runs no pipeline (jobs stay queued): for tools that only read or write the queue. */
  workers: number;
  embedder: EmbedderConfig;
  batchJobs: number;
  overlapTokens: number;
  /** One-time dashboard sign-in for the desktop window; null when run headless. */
  desktopSignInToken: string | null;
  /** The language model endpoint's initial settings (the stored settings win once saved). */
  llm: { baseUrl: string | null; model: string | null; apiKey: string | null; timeoutMs: number };
  /** Where the public listener (the visitor side alone) listens; null when it is off. */
  publicListener: { host: string; port: number } | null;
  /** Reverse proxies whose forwarded client address and scheme are believed. */
  trustedProxies: string[];
};

/** Two workers use both cores of a small machine; more only pays off with more cores and memory. */
function defaultWorkers(): number {
  return Math.max(1, Math.min(2, os.availableParallelism()));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid LocalIQ configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    dataDir: path.resolve(e.LOCALIQ_DATA_DIR ?? defaultDataDir(env)),
    host: e.LOCALIQ_HOST,
    port: e.LOCALIQ_PORT,
    secretStore: e.LOCALIQ_SECRET_STORE,
    bodyLimitBytes: e.LOCALIQ_BODY_LIMIT_BYTES,
    bulkLimit: e.LOCALIQ_BULK_LIMIT,
    bodyTimeoutMs: e.LOCALIQ_BODY_TIMEOUT_MS,
    fileLimits: {
      fileBytes: e.LOCALIQ_FILE_MAX_BYTES,
      requestBytes: e.LOCALIQ_FILES_MAX_REQUEST_BYTES,
      filesPerRequest: e.LOCALIQ_FILES_PER_REQUEST,
    },
    extraction: {
      timeoutMs: e.LOCALIQ_EXTRACT_TIMEOUT_MS,
      memoryMb: e.LOCALIQ_EXTRACT_MEMORY_MB,
      ocr: e.LOCALIQ_OCR === 'on',
      maxTextChars: e.LOCALIQ_FILE_MAX_TEXT_CHARS,
    },
    rateLimit: { perSecond: e.LOCALIQ_RATE_LIMIT_PER_SECOND, burst: e.LOCALIQ_RATE_LIMIT_BURST },
    maxAttempts: e.LOCALIQ_MAX_ATTEMPTS,
    jobHistoryDays: e.LOCALIQ_JOB_HISTORY_DAYS,
    logLevel: e.LOCALIQ_LOG_LEVEL,
    logFormat: resolveLogFormat(e.LOCALIQ_LOG_FORMAT),
    workers: e.LOCALIQ_WORKERS ?? defaultWorkers(),
    embedder: e.LOCALIQ_EMBEDDER === 'use-lite' ? { kind: 'use-lite' } : { kind: 'onnx-folder', path: path.resolve(e.LOCALIQ_EMBEDDER) },
    batchJobs: e.LOCALIQ_BATCH_JOBS,
    overlapTokens: e.LOCALIQ_CHUNK_OVERLAP_TOKENS,
    desktopSignInToken: e.LOCALIQ_DESKTOP_SIGN_IN_TOKEN ?? null,
    llm: {
      baseUrl: e.LOCALIQ_LLM_BASE_URL ?? null,
      model: e.LOCALIQ_LLM_MODEL ?? null,
      apiKey: e.LOCALIQ_LLM_API_KEY ?? null,
      timeoutMs: e.LOCALIQ_LLM_TIMEOUT_MS,
    },
    publicListener: e.LOCALIQ_PUBLIC_PORT === undefined ? null : { host: e.LOCALIQ_PUBLIC_HOST, port: e.LOCALIQ_PUBLIC_PORT },
    trustedProxies: e.LOCALIQ_TRUSTED_PROXY.map((address) => address.toLowerCase()),
    ...overrides,
  };
}
