import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { IngestItem } from '../../common/contract/ingest.ts';
import { fileItem } from '../domain/file-items.ts';
import type { BackgroundPass } from '../domain/background-pass.ts';
import type { ItemIdentity } from '../domain/job-record.ts';
import {
  checkSourceInput,
  emptySummary,
  MISSES_BEFORE_REMOVAL,
  sourceIntegrationId,
  type StoredPage,
  type WebsiteSource,
  type WebsiteSourceInput,
  type WebsiteSourceService,
  type WebsiteSourceStore,
  type WebsiteSync,
} from '../domain/website-sources.ts';
import type { Originals } from '../storage/originals.ts';
import { CRAWL_DEFAULTS, type CrawlEvent, crawlSite, type Fetch, type KnownPage } from './crawl.ts';
import { fetchPage } from './fetch-page.ts';

/** The user agent every request carries: robots.txt rules for `LocalIQ` apply to it. */
export const USER_AGENT = "LocalIQ/1.0 (+the site owner's knowledge appliance; robots.txt token LocalIQ)";

/** Skips listed in one sync's summary; beyond, only counted by the crawl's own log. */
const SKIPPED_KEPT = 500;
const CHECK_EVERY_MS = 60_000;
/** A page's address is its item's external id, at most this long. */
const MAX_ADDRESS_LENGTH = 256;

export type SyncDeps = {
  store: WebsiteSourceStore;
  /** Pushes items through the usual queue (JobQueue.push). */
  push: (items: IngestItem[]) => Promise<unknown>;
  originals: Originals;
  deleteItem: (identity: ItemIdentity, now: number) => void;
  clock?: () => number;
  fetch?: Fetch;
};

/**
 * Website sources' syncs: each one crawls its site (crawl.ts) and turns what it finds into items
 * (pages and linked documents as files the pipeline extracts, like uploads), asks again with the
 * validators kept, pushes only pages whose text changed, and deletes the items of pages that are
 * gone. A sync is a row in `website_syncs`: one still `running` when the server stopped is run
 * again at the next start (the pages done before come back unchanged, at the cost of a 304).
 * Scheduled syncs (`everyMs`) start when due, and one missed while LocalIQ was stopped at start.
 */
export class WebsiteSources implements WebsiteSourceService, BackgroundPass {
  /** A background pass (background-pass.ts): checks the schedules every minute, and at start-up. */
  readonly name = 'website-sync';
  readonly intervalMs = CHECK_EVERY_MS;
  readonly runAtStart = true;
  private readonly running = new Map<string, { sync: WebsiteSync; done: Promise<WebsiteSync>; abort: AbortController }>();
  private resumed = false;
  private readonly clock: () => number;

  constructor(private readonly deps: SyncDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** The first run continues the syncs a stopped server left running; every run starts those due. */
  run(): void {
    if (!this.resumed) {
      for (const sync of this.deps.store.runningSyncs()) {
        const source = this.deps.store.get(sync.sourceId);
        if (source) this.launch(source, sync);
      }
      this.resumed = true;
    }
    this.tick();
  }

  /** Resolves once every sync under way now has ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running.values()].map(({ done }) => done));
  }

  /** Stops the syncs under way; their rows stay `running`, for the next start. */
  async stop(): Promise<void> {
    const under = [...this.running.values()];
    for (const { abort } of under) abort.abort(new Error('the server stopped'));
    await Promise.allSettled(under.map(({ done }) => done));
  }

  /** Starts the syncs that are due; returns the ones started. */
  tick(): WebsiteSync[] {
    const started: WebsiteSync[] = [];
    for (const source of this.deps.store.list()) {
      if (source.everyMs === null || this.running.has(source.id)) continue;
      const last = this.deps.store.lastSync(source.id);
      if (!last || last.startedAt + source.everyMs <= this.clock()) started.push(this.sync(source.id).sync);
    }
    return started;
  }

  /** Starts a sync of the source (or joins the one under way). */
  sync(sourceId: string): { sync: WebsiteSync; done: Promise<WebsiteSync> } {
    const under = this.running.get(sourceId);
    if (under) return under;
    const source = this.deps.store.get(sourceId);
    if (!source) throw new Error(`no website source ${sourceId}`);
    const sync: WebsiteSync = {
      id: randomBytes(8).toString('hex'),
      sourceId,
      state: 'running',
      startedAt: this.clock(),
      finishedAt: null,
      summary: emptySummary(),
      error: null,
    };
    this.deps.store.insertSync(sync);
    return this.launch(source, sync);
  }

  /** Stores a new source (checked: WebsiteSourceError names the field to fix); its first sync is started by the caller or the schedule. */
  create(input: WebsiteSourceInput): WebsiteSource {
    const checked = checkSourceInput(input);
    const source: WebsiteSource = { id: randomBytes(6).toString('hex'), ...checked, createdAt: this.clock() };
    this.deps.store.insert(source);
    return source;
  }

  /** Each source with its last sync (the one under way, as it stands, if any). */
  list(): Array<{ source: WebsiteSource; lastSync: WebsiteSync | null }> {
    return this.deps.store.list().map((source) => ({ source, lastSync: this.current(source.id) ?? this.deps.store.lastSync(source.id) }));
  }

  /** A sync by its id: the one under way as it stands, else as stored. */
  syncById(syncId: string): WebsiteSync | null {
    for (const { sync } of this.running.values()) if (sync.id === syncId) return sync;
    return this.deps.store.getSync(syncId);
  }

  /** A sync under way, as it stands. */
  current(sourceId: string): WebsiteSync | null {
    return this.running.get(sourceId)?.sync ?? null;
  }

  /** Removes the source and the items of all its pages. */
  async remove(sourceId: string): Promise<boolean> {
    const source = this.deps.store.get(sourceId);
    if (!source) return false;
    const under = this.running.get(sourceId);
    if (under) {
      under.abort.abort(new Error('the source was removed'));
      await under.done.catch(() => undefined);
    }
    for (const page of this.deps.store.pages(sourceId)) this.deleteItem(source, page.url);
    this.deps.store.remove(sourceId);
    return true;
  }

  private launch(source: WebsiteSource, sync: WebsiteSync) {
    const abort = new AbortController();
    const entry = { sync, abort, done: Promise.resolve(sync) };
    entry.done = this.crawlAndPush(source, sync, abort.signal)
      // Recording the end can fail too (the database closed under a stopping server): the sync
      // stays as last recorded, `running`, and the next start continues it.
      .catch((error: unknown) => ({ ...sync, state: 'failed' as const, error: (error as Error).message }))
      .finally(() => this.running.delete(source.id));
    this.running.set(source.id, entry);
    return entry;
  }

  private async crawlAndPush(source: WebsiteSource, sync: WebsiteSync, signal: AbortSignal): Promise<WebsiteSync> {
    const { store } = this.deps;
    const stored = new Map(store.pages(source.id).map((page) => [page.url, page]));
    const known = new Map<string, KnownPage>([...stored].map(([url, page]) => [url, page]));
    const found = new Set<string>();
    const removed = new Set<string>();
    const summary = sync.summary;
    let lastSaved = 0;
    const save = (force = false) => {
      if (!force && this.clock() - lastSaved < 1000) return;
      lastSaved = this.clock();
      store.updateSync(sync);
    };
    const onEvent = async (event: CrawlEvent) => {
      if (event.kind === 'page' && event.url.length > MAX_ADDRESS_LENGTH) {
        event = { kind: 'skipped', url: event.url, reason: `an address longer than ${MAX_ADDRESS_LENGTH} characters` };
      }
      switch (event.kind) {
        case 'page': {
          await this.pushPage(source, event);
          if (stored.has(event.url)) summary.updated++;
          else summary.added++;
          store.savePage(source.id, { url: event.url, etag: event.etag, lastModified: event.lastModified, hash: event.hash, links: event.links, misses: 0 });
          found.add(event.url);
          break;
        }
        case 'unchanged': {
          summary.unchanged++;
          const page = stored.get(event.url);
          if (page) store.savePage(source.id, { ...page, etag: event.etag, lastModified: event.lastModified, links: event.links, misses: 0 });
          found.add(event.url);
          break;
        }
        case 'gone':
          if (stored.has(event.url)) {
            this.removePage(source, event.url, summary);
            removed.add(event.url);
          } else if (summary.skipped.length < SKIPPED_KEPT) {
            summary.skipped.push({ url: event.url, reason: 'not found (HTTP 404 or 410)' });
          }
          break;
        case 'skipped':
          // A page the owner now keeps out (noindex, robots.txt) leaves the knowledge base too.
          if (stored.has(event.url) && /^(noindex|disallowed)/.test(event.reason)) {
            this.removePage(source, event.url, summary);
            removed.add(event.url);
          }
          if (summary.skipped.length < SKIPPED_KEPT) summary.skipped.push({ url: event.url, reason: event.reason });
          break;
      }
      save();
    };
    try {
      const result = await crawlSite(
        {
          ...source.settings,
          userAgent: USER_AGENT,
          maxPageBytes: CRAWL_DEFAULTS.maxPageBytes,
          pageTimeoutMs: CRAWL_DEFAULTS.pageTimeoutMs,
        },
        known,
        { fetch: this.deps.fetch ?? fetchPage, signal },
        onEvent,
      );
      summary.requests += result.requests;
      summary.bytes += result.bytes;
      // A crawl that read no page at all (the site down, robots.txt unreadable) says nothing of what is gone.
      if (found.size > 0) this.countMisses(source, stored, found, removed, result.seen, summary);
      sync.state = 'succeeded';
    } catch (error) {
      if (signal.aborted && (signal.reason as Error)?.message === 'the server stopped') {
        save(true);
        return sync;
      }
      sync.state = 'failed';
      sync.error = (error as Error).message;
    }
    sync.finishedAt = this.clock();
    save(true);
    return sync;
  }

  /** Known pages neither read nor linked this sync miss once more; a page missed twice in a row is removed. */
  private countMisses(
    source: WebsiteSource,
    stored: Map<string, StoredPage>,
    found: Set<string>,
    removed: Set<string>,
    seen: Set<string>,
    summary: WebsiteSync['summary'],
  ) {
    for (const page of stored.values()) {
      if (found.has(page.url) || removed.has(page.url)) continue;
      const misses = seen.has(page.url) ? 0 : page.misses + 1;
      if (misses >= MISSES_BEFORE_REMOVAL) this.removePage(source, page.url, summary);
      else this.deps.store.savePage(source.id, { ...page, misses });
    }
  }

  private removePage(source: WebsiteSource, url: string, summary: WebsiteSync['summary']) {
    this.deleteItem(source, url);
    this.deps.store.removePage(source.id, url);
    summary.removed++;
  }

  private deleteItem(source: WebsiteSource, url: string) {
    this.deps.deleteItem({ knowledgeBaseId: source.knowledgeBaseId, integrationId: sourceIntegrationId(source.id), externalId: url }, this.clock());
  }

  /** The page's main content (or the linked document) kept as an original and pushed as a file item, as an upload is. */
  private async pushPage(source: WebsiteSource, event: Extract<CrawlEvent, { kind: 'page' }>): Promise<void> {
    const { originals } = this.deps;
    const incoming = originals.incomingPath();
    fs.writeFileSync(incoming, event.body, { flag: 'wx', mode: 0o600 });
    const handle = fs.openSync(incoming, 'r+');
    try {
      fs.fsyncSync(handle);
    } finally {
      fs.closeSync(handle);
    }
    const sha256 = createHash('sha256').update(event.body).digest('hex');
    originals.adopt(incoming, sha256);
    const item = fileItem(
      source.knowledgeBaseId,
      { integrationId: sourceIntegrationId(source.id), sourceType: 'PAGE' },
      { sha256, name: fileName(event.url, event.fileKind), bytes: event.body.length },
      event.url,
    );
    item.data.url = event.url;
    if (event.title) item.data.title = event.title;
    try {
      await this.deps.push([item]);
    } finally {
      originals.settle(incoming, sha256);
    }
  }
}

/** A file name the pipeline reads as the right kind: the address's last segment and the kind's extension. */
function fileName(url: string, kind: 'html' | 'pdf' | 'docx'): string {
  const segment = new URL(url).pathname.split('/').filter(Boolean).pop() ?? 'index';
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A malformed escape stays as it is.
  }
  const last = decoded.replace(/\.(html?|pdf|docx)$/i, '') || 'index';
  return `${last.replace(/[^\p{L}\p{N} ._-]/gu, '-').slice(0, 100)}.${kind}`;
}
