import { type ImportMapping, type ImportTarget, mapRecord, type RowError } from '../../../common/import/import-mapping.ts';
import type { IngestItem } from '../../../common/contract/ingest.ts';
import { JOB_STATUSES, type JobStatus, type JobView } from '../../../common/contract/jobs.ts';
import type { ImportFormat } from '../../../common/import/formats.ts';
import { type ByteSource, openRecords } from './file-records.ts';
import { callJson, FINAL_JOB_STATES, PublicApiError } from './public-api.ts';

/**
 * The dashboard's import: the same mapping and validation as `localiq import` (mapRecord from the
 * contract), the same bulk path (the admin API's, with the signed-in user's session), the same
 * resume and sync rules. Everything here is plain functions so the view only renders progress.
 */
export type ImportSettings = { format: ImportFormat; mapping: ImportMapping; target: ImportTarget };

export const BATCH_SIZE = 500;
/** Serialized size at which a batch is sent early, well under the server's default 10 MB body limit. */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
export const PREVIEW_COUNT = 10;
/** Invalid rows kept for display; the count covers all of them. */
const MAX_SHOWN_INVALID = 5_000;

/** `titlesFromContent`: valid rows without a title, whose items take the start of their content as title. */
export type ReadProgress = { rows: number; valid: number; invalid: number; titlesFromContent: number; bytesRead: number; totalBytes: number };

export type DryRunReport = ReadProgress & { preview: IngestItem[]; invalidRows: RowError[]; idsInFile: Set<string> };

/** Streams the whole file through the mapping: what an import would send and what it would refuse. */
export async function dryRun(file: ByteSource, settings: ImportSettings, onProgress: (p: ReadProgress) => void, signal: AbortSignal): Promise<DryRunReport> {
  const reader = openRecords(file, settings.format);
  const report: DryRunReport = { rows: 0, valid: 0, invalid: 0, titlesFromContent: 0, bytesRead: 0, totalBytes: file.size, preview: [], invalidRows: [], idsInFile: new Set() };
  let lastShown = 0;
  for await (const read of reader.records) {
    if (signal.aborted) throw signal.reason;
    report.rows++;
    const mapped = 'error' in read ? { error: { row: read.row, reason: read.error } as RowError } : mapRecord(read.record, settings.mapping, settings.target, read.row);
    if ('error' in mapped) {
      report.invalid++;
      if (mapped.error.externalId) report.idsInFile.add(mapped.error.externalId);
      if (report.invalidRows.length < MAX_SHOWN_INVALID) report.invalidRows.push(mapped.error);
    } else {
      report.valid++;
      if (mapped.titleFromContent) report.titlesFromContent++;
      report.idsInFile.add(mapped.item.externalId);
      if (report.preview.length < PREVIEW_COUNT) report.preview.push(mapped.item);
    }
    if (performance.now() - lastShown > 100) {
      lastShown = performance.now();
      onProgress({ ...report, bytesRead: reader.bytesRead() });
      await new Promise((resolve) => setTimeout(resolve, 0)); // let the page paint
    }
  }
  report.bytesRead = reader.bytesRead();
  onProgress(report);
  return report;
}

// ---- Resume points -------------------------------------------------------------------------

/** FNV-1a: a short, stable fingerprint of the settings (no secrets go into it). */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

export type ResumePoint = { lastRow: number; itemsSent: number; updatedAt: string };

/**
 * The file's name, size and modification time plus the mapping and target: a changed file or a
 * different mapping starts over instead of skipping rows it never sent.
 */
export function resumeKey(file: ByteSource & { lastModified?: number }, settings: ImportSettings): string {
  return `localiq.import:${file.name}:${file.size}:${file.lastModified ?? 0}:${fingerprint(JSON.stringify(settings))}`;
}

export function loadResumePoint(key: string): ResumePoint | null {
  try {
    const saved = JSON.parse(localStorage.getItem(key) ?? 'null') as ResumePoint | null;
    return saved && Number.isInteger(saved.lastRow) && saved.lastRow > 0 ? saved : null;
  } catch {
    return null;
  }
}

const saveResumePoint = (key: string, point: ResumePoint) => localStorage.setItem(key, JSON.stringify(point));
export const clearResumePoint = (key: string) => localStorage.removeItem(key);

// ---- Import --------------------------------------------------------------------------------

export type ImportProgress = ReadProgress & { itemsSent: number; batches: number; waiting: string | null; invalidRows: RowError[] };

export type ImportResult = ImportProgress & { pushedIds: Set<string>; idsInFile: Set<string> };

/** Lets the view pause between batches: `wait()` resolves once the import may go on. */
export class PauseGate {
  private resume: (() => void) | null = null;
  private gate: Promise<void> | null = null;
  get paused(): boolean {
    return this.gate !== null;
  }
  pause(): void {
    if (!this.gate) this.gate = new Promise((resolve) => (this.resume = resolve));
  }
  play(): void {
    this.resume?.();
    this.gate = null;
    this.resume = null;
  }
  wait(): Promise<void> {
    return this.gate ?? Promise.resolve();
  }
}

/**
 * Reads the file again from the start, sends valid items in batches of up to 500 to
 * `POST /ingest/bulk` and records the last acknowledged row after every batch. Rows up to
 * `resumeAfterRow` were acknowledged by an earlier run and are not sent again.
 */
export async function runImport(options: {
  file: ByteSource & { lastModified?: number };
  settings: ImportSettings;
  resumeAfterRow: number;
  itemsSentBefore: number;
  signal: AbortSignal;
  gate: PauseGate;
  onProgress: (p: ImportProgress) => void;
}): Promise<ImportResult> {
  const { file, settings, signal, gate, onProgress } = options;
  const key = resumeKey(file, settings);
  const reader = openRecords(file, settings.format);
  const state: ImportResult = {
    rows: 0,
    valid: 0,
    invalid: 0,
    titlesFromContent: 0,
    bytesRead: 0,
    totalBytes: file.size,
    itemsSent: options.itemsSentBefore,
    batches: 0,
    waiting: null,
    pushedIds: new Set(),
    idsInFile: new Set(),
    invalidRows: [],
  };
  const report = () => onProgress({ ...state, bytesRead: reader.bytesRead() });
  let batch: { items: IngestItem[]; bytes: number; lastRow: number } = { items: [], bytes: 0, lastRow: 0 };
  const encoder = new TextEncoder();

  const send = async (items: IngestItem[]): Promise<void> => {
    try {
      await callJson('session', 'POST', '/ingest/bulk', { items }, {
        signal,
        onWait: (reason, ms) => {
          state.waiting = `${reason}: waiting ${Math.round(ms / 1000)} s`;
          report();
        },
      });
      state.batches++;
    } catch (error) {
      // A server with a lower bulk or body limit refuses the batch as too big: send it in halves.
      const tooBig = error instanceof PublicApiError && (error.code === 'too_many_items' || error.code === 'payload_too_large');
      if (!tooBig || items.length === 1) throw error;
      const half = Math.ceil(items.length / 2);
      await send(items.slice(0, half));
      await send(items.slice(half));
    }
  };
  const flush = async () => {
    if (batch.items.length === 0) return;
    await gate.wait();
    if (signal.aborted) throw signal.reason;
    await send(batch.items);
    state.waiting = null;
    state.itemsSent += batch.items.length;
    saveResumePoint(key, { lastRow: batch.lastRow, itemsSent: state.itemsSent, updatedAt: new Date().toISOString() });
    batch = { items: [], bytes: 0, lastRow: 0 };
    report();
  };

  let lastShown = 0;
  for await (const read of reader.records) {
    if (signal.aborted) throw signal.reason;
    state.rows++;
    const mapped = 'error' in read ? { error: { row: read.row, reason: read.error } as RowError } : mapRecord(read.record, settings.mapping, settings.target, read.row);
    if ('error' in mapped) {
      state.invalid++;
      if (mapped.error.externalId) state.idsInFile.add(mapped.error.externalId);
      if (state.invalidRows.length < MAX_SHOWN_INVALID) state.invalidRows.push(mapped.error);
      continue;
    }
    state.valid++;
    if (mapped.titleFromContent) state.titlesFromContent++;
    state.idsInFile.add(mapped.item.externalId);
    state.pushedIds.add(mapped.item.externalId);
    if (read.row <= options.resumeAfterRow) continue;
    const bytes = encoder.encode(JSON.stringify(mapped.item)).length;
    if (batch.items.length >= BATCH_SIZE || (batch.items.length > 0 && batch.bytes + bytes > MAX_BATCH_BYTES)) await flush();
    batch.items.push(mapped.item);
    batch.bytes += bytes + 1;
    batch.lastRow = read.row;
    if (performance.now() - lastShown > 100) {
      lastShown = performance.now();
      report();
    }
  }
  await flush();
  clearResumePoint(key);
  state.bytesRead = reader.bytesRead();
  onProgress(state);
  return state;
}

// ---- Following jobs ------------------------------------------------------------------------

export type JobTally = Record<JobStatus, number> & { done: number; total: number };

function jobsPagePath(target: ImportTarget, cursor: string | null, status?: JobStatus): string {
  const query = new URLSearchParams({ knowledgeBaseId: target.knowledgeBaseId, integrationId: target.integrationId, limit: '500' });
  if (status) query.set('status', status);
  if (cursor) query.set('cursor', cursor);
  return `/jobs?${query}`;
}

/**
 * The latest job of each pushed item from `GET /jobs` (newest first, so the first job seen for
 * an externalId is its latest), polled until every one is final.
 */
export async function followJobs(target: ImportTarget, ids: Set<string>, signal: AbortSignal, onTally: (t: JobTally) => void): Promise<JobTally> {
  for (;;) {
    const latest = new Map<string, JobStatus>();
    let cursor: string | null = null;
    do {
      const page: { data: JobView[]; nextCursor: string | null } = await callJson('session', 'GET', jobsPagePath(target, cursor), undefined, { signal });
      for (const job of page.data) if (ids.has(job.externalId) && !latest.has(job.externalId)) latest.set(job.externalId, job.status);
      cursor = page.nextCursor;
    } while (cursor && latest.size < ids.size);
    const tally = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as JobTally;
    for (const status of latest.values()) tally[status]++;
    tally.done = [...latest.values()].filter((s) => FINAL_JOB_STATES.has(s)).length;
    tally.total = ids.size;
    onTally(tally);
    if (tally.done === ids.size) return tally;
    await new Promise((resolve) => setTimeout(resolve, ids.size > 1000 ? 3000 : 1000));
    if (signal.aborted) throw signal.reason;
  }
}

// ---- Sync ----------------------------------------------------------------------------------

/**
 * What the knowledge base holds for this integration but the file does not: indexed items from
 * the item list, plus items pushed but not indexed yet (queued and processing jobs).
 */
export async function findAbsentItems(target: ImportTarget, idsInFile: Set<string>, signal: AbortSignal): Promise<string[]> {
  const present = new Set<string>();
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ integrationId: target.integrationId, limit: '200' });
    if (cursor) query.set('cursor', cursor);
    const page: { data: Array<{ externalId: string }>; nextCursor: string | null } = await callJson(
      'session',
      'GET',
      `/knowledge-bases/${encodeURIComponent(target.knowledgeBaseId)}/items?${query}`,
      undefined,
      { signal },
    );
    for (const item of page.data) present.add(item.externalId);
    cursor = page.nextCursor;
  } while (cursor);
  for (const status of ['queued', 'processing'] as const) {
    cursor = null;
    do {
      const page: { data: JobView[]; nextCursor: string | null } = await callJson('session', 'GET', jobsPagePath(target, cursor, status), undefined, { signal });
      for (const job of page.data) present.add(job.externalId);
      cursor = page.nextCursor;
    } while (cursor);
  }
  return [...present].filter((id) => !idsInFile.has(id)).sort();
}

/** Deletes a few at a time; an item already gone (404) counts as deleted. */
export async function deleteItems(target: ImportTarget, externalIds: string[], onDeleted: (n: number) => void): Promise<number> {
  let next = 0;
  let deleted = 0;
  const path = (id: string) =>
    `/knowledge-bases/${encodeURIComponent(target.knowledgeBaseId)}/items/${encodeURIComponent(target.integrationId)}/${encodeURIComponent(id)}`;
  const worker = async () => {
    while (next < externalIds.length) {
      const id = externalIds[next++]!;
      try {
        await callJson('session', 'DELETE', path(id));
      } catch (error) {
        if (!(error instanceof PublicApiError && error.code === 'not_found')) throw error;
      }
      onDeleted(++deleted);
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, externalIds.length) }, worker));
  return deleted;
}
