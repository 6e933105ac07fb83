import { z } from 'zod';
import { SCOPE_DESCRIPTIONS, SCOPES } from './scopes.ts';
import { sourceTypeSchema } from './ingest.ts';
import { jobStatusSchema, type JobView } from './jobs.ts';
import { identifier, safeText } from './text-rules.ts';
import type { Widget } from './widget.ts';
import type { FileKind } from './files.ts';

/**
 * The dashboard's admin API (`/admin/api/*`): what the React UI sends and receives. It is a
 * separate surface from the integration API: a session cookie, never an `x-api-key`.
 * The renderer imports only from common/, so this file stays free of server code.
 */
export { SCOPES, SCOPE_DESCRIPTIONS };
export type { Scope } from './scopes.ts';
export { SOURCE_TYPES } from './ingest.ts';
export { JOB_STATUSES, PRIORITY_NAMES } from './jobs.ts';
export type { JobView, JobStatus } from './jobs.ts';
export type { AskEvent, AskResponse, Citation } from './ask.ts';

/** The header every state-changing admin request carries: the session's CSRF token. */
export const CSRF_HEADER = 'x-localiq-csrf';
export const SESSION_COOKIE = 'localiq_session';
export const ADMIN_PREFIX = '/admin/api';
export const PASSWORD_MIN_LENGTH = 10;

export const ROLE_NAMES = ['owner', 'admin', 'member'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];
export const ROLE_LABELS: Record<RoleName, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

const username = safeText(64)
  .trim()
  .min(1)
  .regex(/^[\p{L}\p{N}._@+-]+$/u, 'letters, digits and . _ @ + - only');
const password = safeText(1024).min(1);

export const credentialsSchema = z.strictObject({ username, password });
export type Credentials = z.infer<typeof credentialsSchema>;

export const newUserSchema = z.strictObject({ username, password, role: z.enum(['admin', 'member']) });
export type NewUser = z.infer<typeof newUserSchema>;
export const userRoleSchema = z.strictObject({ role: z.enum(['admin', 'member']) });
export const passwordChangeSchema = z.strictObject({ currentPassword: password, newPassword: password });
export const userParamsSchema = z.strictObject({ userId: z.string().min(1).max(64) });

export type AdminUser = {
  id: string;
  username: string;
  role: RoleName;
  createdAt: string;
  lastSignInAt: string | null;
};

export type SessionInfo = { user: AdminUser; csrfToken: string; expiresAt: string; canManage: boolean };
export type SetupStatus = { needsOwner: boolean };

export type AdminKey = {
  id: string;
  prefix: string;
  name: string;
  description: string;
  scopes: Array<(typeof SCOPES)[number]>;
  knowledgeBaseIds: string[] | null;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  rotatedFrom: string | null;
  state: 'active' | 'expired' | 'revoked';
};

export const newKeySchema = z.strictObject({
  name: safeText(100).trim().min(1),
  description: safeText(500).default(''),
  scopes: z.array(z.enum(SCOPES)).min(1, 'choose at least one scope'),
  knowledgeBaseIds: z.array(identifier()).max(100).nullable().default(null),
  expiresAt: z.iso.datetime({ offset: true }).nullable().default(null),
});
export type NewKey = z.input<typeof newKeySchema>;
export const keyParamsSchema = z.strictObject({ keyId: z.string().min(1).max(64) });
export const rotateKeySchema = z.strictObject({
  graceHours: z.number().min(0).max(24 * 30).default(24),
});
export type CreatedKey = { key: AdminKey; value: string };

export const adminItemListQuerySchema = z.strictObject({
  sourceType: sourceTypeSchema.optional(),
  integrationId: identifier().optional(),
  q: safeText(500).trim().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(64).optional(),
});

export type AdminKnowledgeBase = {
  id: string;
  itemCount: number;
  chunkCount: number;
  pendingJobs: number;
  createdAt: string;
};
export type AdminIntegration = { id: string; itemCount: number };
export type AdminItemSummary = {
  knowledgeBaseId: string;
  integrationId: string;
  externalId: string;
  sourceType: string;
  title: string;
  url: string | null;
  updatedAt: string;
  chunkCount: number | null;
};
export type AdminItemDetail = AdminItemSummary & {
  content: string;
  text: string;
  sourceData: Record<string, unknown> | null;
  contentHash: string;
  embedder: string;
  /** 'text' while its passages wait for their vectors (found by keyword already), then 'complete'. */
  indexing: 'text' | 'complete';
  createdAt: string;
  chunks: Array<{ id: number; position: number; text: string; tokenCount: number; page?: number; section?: string }>;
  jobs: JobView[];
  /** The uploaded file the item was extracted from (files as knowledge), when it is kept; else null. */
  original: AdminOriginal | null;
};
/** An item's original file, served by GET /admin/api/knowledge-bases/{kb}/items/{integration}/{externalId}/original. */
export type AdminOriginal = { fileName: string; kind: FileKind; contentType: string; bytes: number };

export const adminJobListQuerySchema = z.strictObject({
  status: jobStatusSchema.optional(),
  knowledgeBaseId: identifier().optional(),
  integrationId: identifier().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(64).optional(),
});
export const itemIdentitySchema = z.strictObject({
  knowledgeBaseId: identifier(),
  integrationId: identifier(),
  externalId: identifier(),
});

/** One message of the live monitor (also the answer of GET /admin/api/monitor). */
export type MonitorSnapshot = {
  at: string;
  counts: Record<'queued' | 'processing' | 'succeeded' | 'skipped' | 'failed' | 'cancelled', number>;
  queuedByPriority: { high: number; normal: number; low: number };
  processing: Array<JobView & { runningMs: number }>;
  progress: { pending: number; done: number };
  jobsPerSecond: number;
  etaSeconds: number | null;
  failures: JobView[];
  recent: JobView[];
};

/** Automatic backups (Settings → Backup, the Owner's only). Times are ISO 8601 (UTC). */
export type AdminBackupSchedule = { enabled: boolean; folder: string | null; hour: number; keep: number };
export type AdminBackupRun = {
  startedAt: string;
  finishedAt: string;
  ok: boolean;
  file: string | null;
  bytes: number | null;
  error: string | null;
  removed: number;
};
export type AdminBackupState = {
  schedule: AdminBackupSchedule;
  running: boolean;
  nextRunAt: string | null;
  lastRun: AdminBackupRun | null;
  lastSuccess: { at: string; file: string; bytes: number } | null;
};

export type AdminSettings = {
  dataDir: string;
  host: string;
  port: number;
  lanAccess: boolean;
  lanAccessHelp: string;
  embedder: string | null;
  workers: number;
  secretStore: string;
  desktopSignIn: boolean;
  /** The visitor side's own listener (LOCALIQ_PUBLIC_HOST/PORT); null when the main one serves it alone. */
  publicListener: { host: string; port: number } | null;
};

/** `GET /admin/api/disk`: whether the disk holding the data folder is full. */
export type DiskConditionView = {
  /** True while the disk holding the data folder is full (pushes refused or processing paused). */
  full: boolean;
  /** When processing paused for it, or a push was last refused for it. */
  since: string | null;
  processingPaused: boolean;
  freeBytes: number | null;
  message: string | null;
};

/** A widget as the dashboard and the CLI show it: with the line to paste and its questions today. */
export type AdminWidget = Widget & {
  snippet: string;
  /** The hosted chat page, `/w/<id>`. */
  pageUrl: string;
  /** Questions asked today (UTC), the day its daily limit counts. */
  questionsToday: number;
};

/**
 * Where the snippets point: the public listener's address when LocalIQ runs one, else the address
 * the dashboard was opened at. Behind a shop's reverse proxy, the owner writes the proxy's host.
 */
export type WidgetAddress = { baseUrl: string; publicListener: boolean };
export type AdminWidgetList = { data: AdminWidget[]; address: WidgetAddress };
