import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ErrorAnswer } from '../../../common/contract/errors.ts';
import { FILE_LIMITS } from '../../../common/contract/files.ts';
import { FINAL_JOB_STATUSES, type FinalJobStatus } from '../../../common/contract/jobs.ts';
import { SOURCE_TYPES } from '../../../common/contract/ingest.ts';
import { loadConfig } from '../../config.ts';
import { ApiClient } from './api-client.ts';
import { FileSyncState } from './files-state.ts';
import { type FilesTarget, type SyncReport, syncFiles } from './files-sync.ts';
import { skippedSummary } from './files-walk.ts';
import { resolveServerUrl } from './server-url.ts';
import { createProgress } from './progress.ts';

export const FILES_USAGE = `  files add PATH… --knowledge-base KB [--integration I] [--source-type T] [--key K | env LOCALIQ_API_KEY]
        [--url U | env LOCALIQ_URL | LOCALIQ_PORT | the data folder's server] [--watch [--interval 30s]] [--no-wait] [--json]
                                          upload documents (PDF, DOCX, Markdown, HTML, text); folders are walked,
                                          hidden and unsupported files skipped; --watch keeps them in sync`;

type Progress = ReturnType<typeof createProgress>;
/** A file's job: its last error when it failed, and its note (pages read by OCR, superseded) when there is one. */
type JobOutcome = { jobId: string; externalId: string; status: FinalJobStatus | 'pending'; error: string | null; note: string | null };

function parseInterval(text: string): number {
  const match = /^(\d+)\s*(s|m)$/.exec(text.trim());
  if (!match || Number(match[1]) === 0) throw new Error(`"${text}" is not an interval like 10s or 5m.`);
  return Number(match[1]) * (match[2] === 's' ? 1_000 : 60_000);
}

/**
 * `localiq files add PATH… --knowledge-base KB`: uploads documents through
 * `POST /knowledge-bases/{id}/files` of a running LocalIQ, then follows their jobs and says how
 * each ended. With `--watch` it stays on: what changes in the folders is pushed, what is deleted
 * is deleted, and a restart catches up from its checkpoint. Exit code 0 when every file was taken
 * and no job failed, 1 otherwise.
 */
export async function filesCommand(args: string[], usageError: (message: string) => Error): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'add') throw usageError('files takes one action: add.');
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      'knowledge-base': { type: 'string' },
      integration: { type: 'string', default: 'files' },
      'source-type': { type: 'string' },
      key: { type: 'string' },
      url: { type: 'string' },
      watch: { type: 'boolean', default: false },
      interval: { type: 'string', default: '30s' },
      'no-wait': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (positionals.length === 0) throw usageError('files add needs at least one file or folder.');
  const knowledgeBaseId = values['knowledge-base'];
  if (!knowledgeBaseId) throw usageError('files add needs --knowledge-base.');
  const sourceType = values['source-type'];
  if (sourceType && !(SOURCE_TYPES as readonly string[]).includes(sourceType)) {
    throw usageError(`--source-type is one of ${SOURCE_TYPES.join(', ')}.`);
  }
  const apiKey = values.key ?? process.env.LOCALIQ_API_KEY;
  if (!apiKey) throw usageError('files add needs an API key: --key or the LOCALIQ_API_KEY environment variable.');
  let intervalMs: number;
  try {
    intervalMs = parseInterval(values.interval!);
  } catch (error) {
    throw usageError((error as Error).message);
  }
  const config = loadConfig();
  const { url, unreachableHint } = resolveServerUrl(values.url, process.env, config);
  const progress = createProgress(process.stderr, values.json);
  const client = new ApiClient({ url, apiKey, unreachableHint, onRetry: ({ reason, waitMs }) => progress.note(`${reason}; retrying in ${Math.ceil(waitMs / 1000)}s`) });
  const target: FilesTarget = { knowledgeBaseId, integrationId: values.integration!, sourceType };
  const roots = positionals.map((p) => path.resolve(p));
  const state = new FileSyncState(config.dataDir, { knowledgeBaseId, integrationId: target.integrationId, roots });

  const pass = async (deleteRemoved: boolean) => {
    const report = await syncFiles({
      client,
      state,
      target,
      paths: roots,
      maxBytes: config.fileLimits.fileBytes ?? FILE_LIMITS.fileBytes,
      deleteRemoved,
      onProgress: (p) => (p.totalFiles > 0 ? progress.uploading(p) : undefined),
    });
    const jobs = values['no-wait'] ? [] : await followJobs(client, knowledgeBaseId, report, progress);
    progress.end();
    return { report, jobs };
  };

  try {
    if (!values.watch) {
      const { report, jobs } = await pass(false);
      print(values.json, report, jobs, state.file);
      return report.refused.length > 0 || jobs.some((job) => job.status === 'failed') ? 1 : 0;
    }
    return await watch(roots, intervalMs, async (first) => {
      const { report, jobs } = await pass(true);
      if (first || report.uploaded.length || report.deleted.length || report.refused.length) print(values.json, report, jobs, state.file);
    });
  } catch (error) {
    progress.end();
    if (error instanceof ErrorAnswer) {
      const details = error.details.map((d) => `\n  ${d.path}: ${d.message}`).join('');
      throw new Error(`the server answered ${error.status} ${error.code}: ${error.message}${details}`);
    }
    throw error;
  }
}

/** Polls the jobs of the files just sent until each is final; a progress bar meanwhile. */
async function followJobs(client: ApiClient, knowledgeBaseId: string, report: SyncReport, progress: Progress): Promise<JobOutcome[]> {
  const outcomes: JobOutcome[] = report.uploaded.map(({ jobId, externalId }) => ({ jobId, externalId, status: 'pending', error: null, note: null }));
  const query = new URLSearchParams({ knowledgeBaseId });
  for (;;) {
    const pending = outcomes.filter((outcome) => outcome.status === 'pending');
    progress.following({ done: outcomes.length - pending.length, total: outcomes.length });
    if (pending.length === 0) return outcomes;
    for (const outcome of pending) {
      const job = await client.request<{ status: string; errors: Array<{ message: string }>; note: string | null }>('GET', `/jobs/${encodeURIComponent(outcome.jobId)}?${query}`);
      if ((FINAL_JOB_STATUSES as readonly string[]).includes(job.status)) {
        outcome.status = job.status as FinalJobStatus;
        outcome.error = job.status === 'failed' ? (job.errors.at(-1)?.message ?? null) : null;
        outcome.note = job.note;
      }
    }
    if (outcomes.some((outcome) => outcome.status === 'pending')) await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function print(json: boolean, report: SyncReport, jobs: JobOutcome[], checkpoint: string): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...report, jobs, checkpoint }, null, 2)}\n`);
    return;
  }
  const out = [
    `${report.found} file(s) found: ${report.uploaded.length} sent, ${report.unchanged} unchanged since the last run${report.deleted.length ? `, ${report.deleted.length} deleted (gone from the folder)` : ''}.`,
  ];
  if (report.skipped.length) out.push(`Skipped ${report.skipped.length}: ${skippedSummary(report.skipped)}.`);
  for (const { externalId, reason } of report.refused) out.push(`  refused ${externalId}: ${reason}`);
  if (jobs.length) {
    const counts = new Map<string, number>();
    for (const job of jobs) counts.set(job.status, (counts.get(job.status) ?? 0) + 1);
    out.push(`Jobs: ${[...counts].map(([status, n]) => `${n} ${status}`).join(', ')}.`);
    for (const job of jobs.filter((j) => j.status === 'failed')) out.push(`  failed ${job.externalId}: ${job.error}`);
    for (const job of jobs.filter((j) => j.note)) out.push(`  ${job.status} ${job.externalId}: ${job.note}`);
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

/**
 * Runs a pass at once (catching up on what changed while nothing watched), then again a moment
 * after anything changes in the folders (fs.watch), and every `intervalMs` in case a change was
 * not reported (network shares). Ends on SIGINT or SIGTERM.
 */
async function watch(roots: string[], intervalMs: number, runPass: (first: boolean) => Promise<void>): Promise<number> {
  let wanted = true;
  let wake: (() => void) | null = null;
  let stopped = false;
  const trigger = () => {
    wanted = true;
    wake?.();
  };
  const watchers = roots
    .filter((root) => fs.statSync(root, { throwIfNoEntry: false })?.isDirectory())
    .flatMap((root) => {
      try {
        return [fs.watch(root, { recursive: true }, trigger)];
      } catch {
        // No change notices here (too many folders, some network shares): the interval still passes.
        return [];
      }
    });
  const timer = setInterval(trigger, intervalMs);
  const stop = () => {
    stopped = true;
    wake?.();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let first = true;
  try {
    while (!stopped) {
      if (!wanted) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      if (stopped) break;
      // A burst of changes (a folder copied in) becomes one pass.
      await new Promise((resolve) => setTimeout(resolve, first ? 0 : 500));
      wanted = false;
      await runPass(first);
      first = false;
    }
  } finally {
    clearInterval(timer);
    for (const watcher of watchers) watcher.close();
  }
  return 0;
}
