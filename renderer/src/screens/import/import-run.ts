import type { ImportMapping, ImportTarget } from '../../../../common/import/import-mapping.ts';
import type { ImportApi } from '../../../../common/import/api-client.ts';
import type { CheckpointStore, ResumePoint } from '../../../../common/import/checkpoint-store.ts';
import { type DryRunReport, dryRunRecords } from '../../../../common/import/dry-run.ts';
import { httpImportApi } from '../../../../common/import/http-import-api.ts';
import { type ImportState, importRecords } from '../../../../common/import/import-records.ts';
import type { OnProgress, ReadOptions } from '../../../../common/import/read-rows.ts';
import type { ImportFormat } from '../../../../common/import/formats.ts';
import { type ByteSource, openRecords } from './file-records.ts';
import { callJson } from '../../api/public-api.ts';

/**
 * The dashboard's side of the import core (common/import), which `localiq import` shares: the
 * admin API with the signed-in user's session, resume points in localStorage, progress paced for
 * a page to paint, and a pause between batches. The view only renders what these report.
 */
export type ImportSettings = { format: ImportFormat; mapping: ImportMapping; target: ImportTarget };

export const PREVIEW_COUNT = 10;
/** Invalid rows kept for display; the count covers all of them. */
const MAX_SHOWN_INVALID = 5_000;

/** The admin API's import routes (`/admin/api/ingest/bulk`, `/admin/api/jobs`…) as the signed-in user: no API key. */
export function sessionImportApi(options: { signal?: AbortSignal; onWait?: (reason: string, ms: number) => void } = {}): ImportApi {
  return httpImportApi((method, path, body) => callJson('session', method, path, body, options), 'admin');
}

/** Shows progress at most every 100 ms while rows are read, and always after a batch and at the end. */
function paced<State extends object>(show: (state: State) => void, letPaint: boolean): OnProgress<State> {
  let lastShown = 0;
  return (state, event) => {
    if (event === 'row') {
      if (performance.now() - lastShown <= 100) return;
      lastShown = performance.now();
    }
    show({ ...state });
    // Reading without network waits never yields: give the page a moment to paint.
    if (event === 'row' && letPaint) return new Promise((resolve) => setTimeout(resolve, 0));
  };
}

/** The chosen file's records through the mapping, as a dry run and an import both read it. */
function reading(file: ByteSource, settings: ImportSettings, signal: AbortSignal): ReadOptions {
  const { mapping, target } = settings;
  return { source: openRecords(file, settings.format), totalBytes: file.size, mapping, target, keepInvalidRows: MAX_SHOWN_INVALID, signal };
}

/** Streams the whole file through the mapping: what an import would send and what it would refuse. */
export function dryRun(file: ByteSource, settings: ImportSettings, onProgress: (p: DryRunReport) => void, signal: AbortSignal): Promise<DryRunReport> {
  return dryRunRecords({ ...reading(file, settings, signal), previewCount: PREVIEW_COUNT, onProgress: paced(onProgress, true) });
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

export const clearResumePoint = (key: string) => localStorage.removeItem(key);

/** Row numbers and counts only, never content: the admin API cannot look a job up, so its id is not kept either. */
function browserCheckpoint(key: string): CheckpointStore {
  return {
    load: () => loadResumePoint(key),
    save: ({ lastRow, itemsSent }) => localStorage.setItem(key, JSON.stringify({ lastRow, itemsSent, updatedAt: new Date().toISOString() })),
    clear: () => clearResumePoint(key),
  };
}

// ---- Import --------------------------------------------------------------------------------

/** `itemsSent` counts the items of an interrupted run this one resumed, too; `waiting` says why a batch is held. */
export type ImportProgress = ImportState & { waiting: string | null };

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
 * Reads the file again from the start and sends the valid items to `POST /admin/api/ingest/bulk`
 * in batches, recording the last acknowledged row in localStorage after every batch. Rows up to
 * a recorded one (the view offers to resume, or clears it to start over) are not sent again.
 */
export async function runImport(options: {
  file: ByteSource & { lastModified?: number };
  settings: ImportSettings;
  signal: AbortSignal;
  gate: PauseGate;
  onProgress: (p: ImportProgress) => void;
}): Promise<ImportState> {
  const { file, settings, signal, gate } = options;
  let waiting: string | null = null;
  /** The core's state as it goes, for a wait announced between progress reports. */
  let live: ImportState | null = null;
  const show = (state: ImportState) => options.onProgress({ ...state, itemsSent: state.itemsSent + (state.resumedFrom?.itemsSent ?? 0), waiting });
  const showPaced = paced(show, false);
  return importRecords({
    ...reading(file, settings, signal),
    api: sessionImportApi({
      signal,
      onWait: (reason, ms) => {
        waiting = `${reason}: waiting ${Math.round(ms / 1000)} s`;
        if (live) show(live);
      },
    }),
    checkpoint: browserCheckpoint(resumeKey(file, settings)),
    beforeBatch: () => gate.wait(),
    onProgress: (state, event) => {
      live = state;
      if (event === 'batch') waiting = null;
      return showPaced(state, event);
    },
  });
}
