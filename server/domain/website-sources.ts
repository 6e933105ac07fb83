import { Refusal } from './errors.ts';

/**
 * A website source: a site crawled into a knowledge base and kept in sync (server/sources/). Its
 * pages are items of the `website-<id>` integration, `PAGE` items whose external id is the page's
 * canonical address.
 */
export type WebsiteSourceSettings = {
  startUrl: string;
  include: string[];
  exclude: string[];
  maxPages: number;
  allowPrivateNetwork: boolean;
};

export type WebsiteSource = {
  id: string;
  knowledgeBaseId: string;
  settings: WebsiteSourceSettings;
  /** Milliseconds between scheduled syncs, or null for syncs on demand only. */
  everyMs: number | null;
  createdAt: number;
};

/** A skipped address and why, as a sync's summary lists them. */
export type SkippedPage = { url: string; reason: string };

export type SyncSummary = {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  skipped: SkippedPage[];
  /** Requests made and bytes read, for the owner and the bench. */
  requests: number;
  bytes: number;
};

export type SyncState = 'running' | 'succeeded' | 'failed';

export type WebsiteSync = {
  id: string;
  sourceId: string;
  state: SyncState;
  startedAt: number;
  finishedAt: number | null;
  /** So far while it runs; final once it ends. */
  summary: SyncSummary;
  error: string | null;
};

/** What the last sync kept of a page. */
export type StoredPage = { url: string; etag: string | null; lastModified: string | null; hash: string; links: string[]; misses: number };

export interface WebsiteSourceStore {
  insert(source: WebsiteSource): void;
  get(id: string): WebsiteSource | null;
  list(): WebsiteSource[];
  remove(id: string): void;
  pages(sourceId: string): StoredPage[];
  savePage(sourceId: string, page: StoredPage): void;
  removePage(sourceId: string, url: string): void;
  insertSync(sync: WebsiteSync): void;
  updateSync(sync: WebsiteSync): void;
  lastSync(sourceId: string): WebsiteSync | null;
  getSync(id: string): WebsiteSync | null;
  /** Syncs left `running` by a server that stopped. */
  runningSyncs(): WebsiteSync[];
}

/** A source's pages are items of this integration. */
export function sourceIntegrationId(sourceId: string): string {
  return `website-${sourceId}`;
}

/** Syncs in a row a page must be missing from the sitemaps and links before its item is deleted. */
export const MISSES_BEFORE_REMOVAL = 2;

const MAX_PAGES_LIMIT = 10_000;
const DEFAULT_MAX_PAGES = 500;
/** The shortest schedule: a site is not read more than once an hour. */
const MIN_EVERY_MS = 60 * 60_000;

/** `30m`, `24h`, `7d` in milliseconds, or null when the text is not such a duration. */
export function parseEvery(text: string): number | null {
  const match = /^(\d{1,5})\s*(m|h|d)$/i.exec(text.trim());
  if (!match) return null;
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2]!.toLowerCase() as 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

export function emptySummary(): SyncSummary {
  return { added: 0, updated: 0, unchanged: 0, removed: 0, skipped: [], requests: 0, bytes: 0 };
}

/** A source refused, with the field to fix. */
export class WebsiteSourceError extends Refusal {
  constructor(
    override readonly field: string,
    message: string,
  ) {
    super('invalid_input', message, field, 'The source was not added.');
  }
}

export type WebsiteSourceInput = {
  knowledgeBaseId: string;
  startUrl: string;
  everyMs?: number | null;
  maxPages?: number;
  include?: string[];
  exclude?: string[];
  allowPrivateNetwork?: boolean;
};

/** The settings of a new source, or the first thing wrong with the input. */
export function checkSourceInput(input: WebsiteSourceInput): { knowledgeBaseId: string; settings: WebsiteSourceSettings; everyMs: number | null } {
  let url: URL;
  try {
    url = new URL(input.startUrl);
  } catch {
    throw new WebsiteSourceError('startUrl', 'must be a whole address such as https://shop.example/');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebsiteSourceError('startUrl', 'must be an http or https address');
  if (url.username || url.password) throw new WebsiteSourceError('startUrl', 'must not hold a user name or password');
  url.hash = '';
  const maxPages = input.maxPages ?? DEFAULT_MAX_PAGES;
  if (!Number.isInteger(maxPages) || maxPages < 1 || maxPages > MAX_PAGES_LIMIT) {
    throw new WebsiteSourceError('maxPages', `must be a whole number from 1 to ${MAX_PAGES_LIMIT}`);
  }
  const everyMs = input.everyMs ?? null;
  if (everyMs !== null && (!Number.isInteger(everyMs) || everyMs < MIN_EVERY_MS)) throw new WebsiteSourceError('every', 'must be at least 1h');
  for (const field of ['include', 'exclude'] as const) {
    for (const pattern of input[field] ?? []) {
      if (pattern.length === 0 || pattern.length > 500) throw new WebsiteSourceError(field, 'each pattern must be 1 to 500 characters');
      if (!pattern.startsWith('/') && !/^https?:\/\//i.test(pattern)) {
        throw new WebsiteSourceError(field, `${pattern} must start with / (a path) or http:// or https:// (a whole address)`);
      }
    }
  }
  if (!input.knowledgeBaseId) throw new WebsiteSourceError('knowledgeBaseId', 'name the knowledge base the pages go to');
  return {
    knowledgeBaseId: input.knowledgeBaseId,
    everyMs,
    settings: {
      startUrl: url.href,
      include: input.include ?? [],
      exclude: input.exclude ?? [],
      maxPages,
      allowPrivateNetwork: input.allowPrivateNetwork ?? false,
    },
  };
}

/** What the admin API needs of website sources (server/sources/sync.ts implements it). */
export interface WebsiteSourceService {
  create(input: WebsiteSourceInput): WebsiteSource;
  list(): Array<{ source: WebsiteSource; lastSync: WebsiteSync | null }>;
  sync(sourceId: string): { sync: WebsiteSync; done: Promise<WebsiteSync> };
  syncById(syncId: string): WebsiteSync | null;
  remove(sourceId: string): Promise<boolean>;
}
