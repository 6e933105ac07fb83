import type { StoredPage, WebsiteSource, WebsiteSourceStore, WebsiteSync } from '../domain/website-sources.ts';
import type { Db } from './db.ts';

type SourceRow = { id: string; knowledge_base_id: string; settings: string; every_ms: number | null; created_at: number };
type PageRow = { url: string; etag: string | null; last_modified: string | null; hash: string; links: string; misses: number };
type SyncRow = { id: string; source_id: string; state: string; started_at: number; finished_at: number | null; summary: string; error: string | null };

/** Website sources, their pages as last read, and their syncs (migration: website_sources). */
export class WebsiteSourceRepo implements WebsiteSourceStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare('INSERT INTO website_sources (id, knowledge_base_id, settings, every_ms, created_at) VALUES (?, ?, ?, ?, ?)'),
      get: db.prepare<[string], SourceRow>('SELECT * FROM website_sources WHERE id = ?'),
      list: db.prepare<[], SourceRow>('SELECT * FROM website_sources ORDER BY created_at, id'),
      remove: db.prepare<[string]>('DELETE FROM website_sources WHERE id = ?'),
      pages: db.prepare<[string], PageRow>('SELECT url, etag, last_modified, hash, links, misses FROM website_pages WHERE source_id = ? ORDER BY url'),
      savePage: db.prepare(
        `INSERT INTO website_pages (source_id, url, etag, last_modified, hash, links, misses) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (source_id, url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
           hash = excluded.hash, links = excluded.links, misses = excluded.misses`,
      ),
      removePage: db.prepare<[string, string]>('DELETE FROM website_pages WHERE source_id = ? AND url = ?'),
      insertSync: db.prepare('INSERT INTO website_syncs (id, source_id, state, started_at, finished_at, summary, error) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      updateSync: db.prepare('UPDATE website_syncs SET state = ?, finished_at = ?, summary = ?, error = ? WHERE id = ?'),
      lastSync: db.prepare<[string], SyncRow>('SELECT * FROM website_syncs WHERE source_id = ? ORDER BY started_at DESC, rowid DESC LIMIT 1'),
      getSync: db.prepare<[string], SyncRow>('SELECT * FROM website_syncs WHERE id = ?'),
      running: db.prepare<[], SyncRow>("SELECT * FROM website_syncs WHERE state = 'running' ORDER BY started_at"),
    };
  }

  insert(source: WebsiteSource): void {
    this.stmts.insert.run(source.id, source.knowledgeBaseId, JSON.stringify(source.settings), source.everyMs, source.createdAt);
  }
  get(id: string): WebsiteSource | null {
    const row = this.stmts.get.get(id);
    return row ? toSource(row) : null;
  }
  list(): WebsiteSource[] {
    return this.stmts.list.all().map(toSource);
  }
  remove(id: string): void {
    this.stmts.remove.run(id);
  }
  pages(sourceId: string): StoredPage[] {
    return this.stmts.pages.all(sourceId).map((row) => ({ url: row.url, etag: row.etag, lastModified: row.last_modified, hash: row.hash, links: JSON.parse(row.links) as string[], misses: row.misses }));
  }
  savePage(sourceId: string, page: StoredPage): void {
    this.stmts.savePage.run(sourceId, page.url, page.etag, page.lastModified, page.hash, JSON.stringify(page.links), page.misses);
  }
  removePage(sourceId: string, url: string): void {
    this.stmts.removePage.run(sourceId, url);
  }
  insertSync(sync: WebsiteSync): void {
    this.stmts.insertSync.run(sync.id, sync.sourceId, sync.state, sync.startedAt, sync.finishedAt, JSON.stringify(sync.summary), sync.error);
  }
  updateSync(sync: WebsiteSync): void {
    this.stmts.updateSync.run(sync.state, sync.finishedAt, JSON.stringify(sync.summary), sync.error, sync.id);
  }
  lastSync(sourceId: string): WebsiteSync | null {
    const row = this.stmts.lastSync.get(sourceId);
    return row ? toSync(row) : null;
  }
  getSync(id: string): WebsiteSync | null {
    const row = this.stmts.getSync.get(id);
    return row ? toSync(row) : null;
  }
  runningSyncs(): WebsiteSync[] {
    return this.stmts.running.all().map(toSync);
  }
}

function toSource(row: SourceRow): WebsiteSource {
  return { id: row.id, knowledgeBaseId: row.knowledge_base_id, settings: JSON.parse(row.settings), everyMs: row.every_ms, createdAt: row.created_at };
}

function toSync(row: SyncRow): WebsiteSync {
  return {
    id: row.id,
    sourceId: row.source_id,
    state: row.state as WebsiteSync['state'],
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    summary: JSON.parse(row.summary),
    error: row.error,
  };
}
