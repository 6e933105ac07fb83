import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { importMappingSchema, importTargetSchema } from '../../../../common/import/import-mapping.ts';
import { listKnowledgeBases } from '../../api/knowledge-bases.ts';
import { Confirm, ErrorNote, PageHeader, useLoad } from '../../components/ui.tsx';
import { useSession } from '../../session.tsx';
import { formatNumber } from '../../format.ts';
import { guessMapping, guessTarget, readColumns } from './columns.ts';
import { formatFromName, type ImportFormat } from '../../../../common/import/formats.ts';
import type { ResumePoint } from '../../../../common/import/checkpoint-store.ts';
import type { DryRunReport } from '../../../../common/import/dry-run.ts';
import { followJobs, type JobTally } from '../../../../common/import/follow-jobs.ts';
import type { ReadTally } from '../../../../common/import/read-rows.ts';
import { deleteItems, findAbsentItems, SYNC_SKIPPED_EMPTY_FILE } from '../../../../common/import/sync.ts';
import {
  clearResumePoint,
  dryRun,
  type ImportProgress,
  type ImportSettings,
  loadResumePoint,
  PauseGate,
  resumeKey,
  runImport,
  sessionImportApi,
} from './import-run.ts';
import { MappingForm, type MappingDraft, type TargetDraft } from './import-mapping-form.tsx';
import { InvalidRows, JobStats, jobSummary, PreviewItems, ReadStats } from './import-results.tsx';

/**
 * Import a CSV, JSON or JSONL export from the browser: map its columns to item fields, dry-run
 * it, then push it through the bulk route with the signed-in session, the way `localiq import` does.
 */

type Phase = 'idle' | 'dry-run' | 'importing' | 'following' | 'syncing' | 'done' | 'stopped';

const EMPTY_MAPPING: MappingDraft = { externalId: '', content: '', title: '', url: '', hash: '', sourceData: [] };

/** A schema issue as the form shows it; zod's message for an empty required field says what to do instead. */
function issueText(issue: { path: PropertyKey[]; message: string }, whenEmpty: string): string {
  return `${issue.path.join('.')}: ${issue.message === 'Too small: expected string to have >=1 characters' ? whenEmpty : issue.message}`;
}

function toSettings(format: ImportFormat | null, m: MappingDraft, t: TargetDraft): { settings: ImportSettings | null; issues: string[] } {
  const sourceData = Object.fromEntries(m.sourceData.filter((r) => r.column).map((r) => [r.key.trim() || r.column, r.column]));
  const mapping = importMappingSchema.safeParse({
    externalId: m.externalId,
    content: m.content,
    ...(m.title ? { title: m.title } : {}),
    ...(m.url ? { url: m.url } : {}),
    ...(m.hash ? { hash: m.hash } : {}),
    ...(Object.keys(sourceData).length ? { sourceData } : {}),
  });
  const target = importTargetSchema.safeParse(t);
  const issues = [
    ...(mapping.success ? [] : mapping.error.issues.map((i) => issueText(i, 'choose a column'))),
    ...(target.success ? [] : target.error.issues.map((i) => issueText(i, 'choose or type a name'))),
  ];
  if (!format || !mapping.success || !target.success) return { settings: null, issues };
  return { settings: { format, mapping: mapping.data, target: target.data }, issues };
}

export function ImportScreen() {
  const fileId = useId();
  const syncId = useId();
  const { session } = useSession();
  const knowledgeBases = useLoad((signal) => listKnowledgeBases(signal), []);
  const knownKbs = (knowledgeBases.data?.data ?? []).map((kb) => kb.id);
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<ImportFormat | null>(null);
  const [columns, setColumns] = useState<string[]>([]);
  const [mapping, setMapping] = useState<MappingDraft>(EMPTY_MAPPING);
  const [target, setTarget] = useState<TargetDraft>({ sourceType: 'ARTICLE', knowledgeBaseId: '', integrationId: '' });
  const [sync, setSync] = useState(false);
  const [phase, setPhase] = useState<Phase>('idle');
  const [error, setError] = useState<string | null>(null);
  const [reading, setReading] = useState<ReadTally | null>(null);
  const [report, setReport] = useState<DryRunReport | null>(null);
  const [wouldDelete, setWouldDelete] = useState<number | null>(null);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [tally, setTally] = useState<JobTally | null>(null);
  const [paused, setPaused] = useState(false);
  const [resume, setResume] = useState<ResumePoint | null>(null);
  const [absent, setAbsent] = useState<string[] | null>(null);
  const [syncNote, setSyncNote] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);
  const gate = useRef(new PauseGate());
  const idsInFile = useRef<Set<string>>(new Set());

  const { settings, issues } = useMemo(() => toSettings(format, mapping, target), [format, mapping, target]);
  const settingsKey = file && settings ? resumeKey(file, settings) : null;
  const busy = phase === 'dry-run' || phase === 'importing' || phase === 'following' || phase === 'syncing';

  // A different file or mapping makes the last dry run and the offered resume point stale.
  useEffect(() => {
    setReport(null);
    setWouldDelete(null);
    setResume(settingsKey ? loadResumePoint(settingsKey) : null);
  }, [settingsKey]);
  useEffect(() => () => controller.current?.abort(), []);

  const chooseFile = async (chosen: File | null) => {
    setError(null);
    setFile(null);
    setPhase('idle');
    setProgress(null);
    setTally(null);
    setSyncNote(null);
    if (!chosen) return;
    const detected = formatFromName(chosen.name);
    if (!detected) return setError(`"${chosen.name}" is not a .csv, .tsv, .json, .jsonl or .ndjson file.`);
    try {
      const found = await readColumns(chosen, detected);
      if (found.length === 0) return setError('No columns found: the file has no header row or no objects.');
      setFile(chosen);
      setFormat(detected);
      setColumns(found);
      setMapping({ ...EMPTY_MAPPING, ...guessMapping(found) });
      // Read again: an import or a push since the screen opened may have created one.
      const current = await listKnowledgeBases();
      knowledgeBases.setData(current);
      setTarget(guessTarget(chosen.name, found, current.data.map((kb) => kb.id)));
    } catch (e) {
      setError(`Cannot read "${chosen.name}": ${(e as Error).message}`);
    }
  };

  const start = () => {
    controller.current?.abort();
    controller.current = new AbortController();
    gate.current = new PauseGate();
    setPaused(false);
    setError(null);
    return controller.current.signal;
  };

  const runDry = async () => {
    if (!file || !settings) return;
    const signal = start();
    setPhase('dry-run');
    setReport(null);
    setWouldDelete(null);
    try {
      const result = await dryRun(file, settings, setReading, signal);
      setReport(result);
      if (sync && result.rows > 0) setWouldDelete((await findAbsentItems(sessionImportApi({ signal }), settings.target, result.idsInFile)).length);
      setPhase('idle');
    } catch (e) {
      if (!signal.aborted) setError(`Dry run stopped: ${(e as Error).message}`);
      setPhase(signal.aborted ? 'stopped' : 'idle');
    }
  };

  const runSync = async (signal: AbortSignal) => {
    if (!settings) return;
    setPhase('syncing');
    const found = await findAbsentItems(sessionImportApi({ signal }), settings.target, idsInFile.current);
    if (found.length === 0) {
      setSyncNote('Sync: every item of this integration is in the file; nothing to delete.');
      setPhase('done');
    } else {
      setAbsent(found); // the confirmation dialog takes over
    }
  };

  /** Resumes from the recorded row when there is one (Start over clears it first). */
  const runAll = async () => {
    if (!file || !settings) return;
    const signal = start();
    setPhase('importing');
    setTally(null);
    setSyncNote(null);
    setProgress(null);
    try {
      const result = await runImport({ file, settings, signal, gate: gate.current, onProgress: setProgress });
      setResume(null);
      idsInFile.current = result.idsInFile;
      if (result.pushedIds.size > 0) {
        setPhase('following');
        await followJobs(sessionImportApi({ signal }), settings.target, result.pushedIds, { signal, onTally: setTally });
      }
      if (sync) {
        if (result.rows === 0) setSyncNote(SYNC_SKIPPED_EMPTY_FILE);
        else return await runSync(signal);
      }
      setPhase('done');
    } catch (e) {
      if (settingsKey) setResume(loadResumePoint(settingsKey));
      if (!signal.aborted) setError(`Import stopped: ${(e as Error).message}`);
      setPhase('stopped');
    }
  };

  const canRun = Boolean(file && settings) && !busy;
  const canImport = canRun && session.canManage;
  return (
    <>
      <PageHeader title="Import a file" />
      <p className="hint">
        Load a CSV, JSON or JSONL export into a knowledge base, as you: the Owner and Admins can import, no API key needed. Importing the same unchanged file again
        skips every item.
      </p>
      <section className="panel" aria-labelledby="import-file-heading">
        <h2 id="import-file-heading">File</h2>
        <div className="field">
          <label htmlFor={fileId}>File (CSV, JSON or JSONL)</label>
          <input id={fileId} type="file" accept=".csv,.tsv,.json,.jsonl,.ndjson" disabled={busy} onChange={(e) => void chooseFile(e.target.files?.[0] ?? null)} />
          {file && format ? (
            <span className="hint" data-testid="file-summary">
              {file.name}: {format.toUpperCase()}, {formatNumber(file.size)} bytes, {columns.length} columns
            </span>
          ) : null}
        </div>
      </section>
      <ErrorNote error={error} />
      {file ? (
        <section className="panel" aria-labelledby="import-mapping-heading">
          <h2 id="import-mapping-heading">Mapping</h2>
          <MappingForm
            columns={columns}
            mapping={mapping}
            target={target}
            knowledgeBases={knownKbs}
            onMapping={setMapping}
            onTarget={setTarget}
            disabled={busy}
          />
          <label className="check" htmlFor={syncId}>
            <input id={syncId} type="checkbox" checked={sync} disabled={busy} onChange={(e) => setSync(e.target.checked)} />
            <span>
              Sync: this file is a full export. After the import, delete this integration's items in the knowledge base that the file no longer holds (you confirm
              how many first).
            </span>
          </label>
          {issues.length > 0 ? (
            <ul className="issues" aria-label="Mapping issues">
              {issues.map((issue) => (
                <li key={issue}>{issue}</li>
              ))}
            </ul>
          ) : null}
          {resume && !busy ? (
            <p className="note" role="status">
              An earlier import of this file with this mapping stopped after row {formatNumber(resume.lastRow)} ({formatNumber(resume.itemsSent)} items sent).
            </p>
          ) : null}
          <div className="actions">
            {busy ? (
              <>
                {phase === 'importing' ? (
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => {
                      if (gate.current.paused) gate.current.play();
                      else gate.current.pause();
                      setPaused(gate.current.paused);
                    }}
                  >
                    {paused ? 'Continue' : 'Pause'}
                  </button>
                ) : null}
                <button
                  type="button"
                  className="danger"
                  onClick={() => {
                    controller.current?.abort();
                    gate.current.play(); // a paused import wakes up to see it was cancelled
                  }}
                >
                  Cancel
                </button>
              </>
            ) : (
              <>
                <button type="button" className="secondary" disabled={!canRun} onClick={() => void runDry()}>
                  Dry run
                </button>
                {resume ? (
                  <>
                    <button
                      type="button"
                      className="secondary"
                      disabled={!canImport}
                      onClick={() => {
                        if (settingsKey) clearResumePoint(settingsKey);
                        void runAll();
                      }}
                    >
                      Start over
                    </button>
                    <button type="button" className="primary" disabled={!canImport} onClick={() => void runAll()}>
                      Resume from row {resume.lastRow + 1}
                    </button>
                  </>
                ) : (
                  <button type="button" className="primary" disabled={!canImport} onClick={() => void runAll()}>
                    Import
                  </button>
                )}
              </>
            )}
          </div>
          {!session.canManage ? <p className="hint">You can try a dry run; only the Owner and Admins can import.</p> : null}
        </section>
      ) : null}
      {phase === 'dry-run' && reading ? (
        <section className="panel" aria-label="Dry run progress">
          <ReadStats progress={reading} label="File read" />
        </section>
      ) : null}
      {report ? (
        <section className="panel" aria-labelledby="dry-run-heading">
          <h2 id="dry-run-heading">Dry run</h2>
          <p role="status">
            {formatNumber(report.rows)} rows: {formatNumber(report.valid)} valid, {formatNumber(report.invalid)} invalid. Nothing was sent.
          </p>
          <ReadStats progress={report} label="Dry run read" />
          {wouldDelete !== null ? <p className="note">Sync would delete {formatNumber(wouldDelete)} item{wouldDelete === 1 ? '' : 's'} not in this file.</p> : null}
          <InvalidRows rows={report.invalidRows} total={report.invalid} />
          <PreviewItems items={report.preview} />
        </section>
      ) : null}
      {progress ? (
        <section className="panel" aria-labelledby="import-progress-heading">
          <h2 id="import-progress-heading">Import</h2>
          <p role="status" data-testid="import-phase">
            {phase === 'importing'
              ? paused
                ? 'Paused after the current batch.'
                : 'Sending batches…'
              : phase === 'following'
                ? 'All rows sent. Waiting for the jobs to finish…'
                : phase === 'syncing'
                  ? 'Looking for items the file no longer holds…'
                  : phase === 'stopped'
                    ? resume
                      ? `Stopped after row ${formatNumber(resume.lastRow)}. The items sent so far are kept; resume to send the rest.`
                      : 'Stopped. The items sent so far are kept.'
                    : 'Import finished.'}
          </p>
          <ReadStats progress={progress} label="Import progress" />
          {progress.invalid > 0 && phase !== 'importing' ? <InvalidRows rows={progress.invalidRows} total={progress.invalid} /> : null}
          {tally ? (
            <>
              <h3>Jobs</h3>
              <p role="status" data-testid="jobs-summary">
                {jobSummary(tally)}
              </p>
              <JobStats tally={tally} />
            </>
          ) : null}
          {syncNote ? <p className="note">{syncNote}</p> : null}
        </section>
      ) : null}
      <Confirm
        title="Delete items missing from the file?"
        open={absent !== null}
        confirmLabel={`Delete ${absent?.length ?? 0} items`}
        message={
          <p data-testid="sync-confirm">
            {formatNumber(absent?.length ?? 0)} item{absent?.length === 1 ? '' : 's'} of integration <code>{settings?.target.integrationId}</code> in knowledge base{' '}
            <code>{settings?.target.knowledgeBaseId}</code> {absent?.length === 1 ? 'is' : 'are'} not in this file and will be deleted.
          </p>
        }
        onCancel={() => {
          setAbsent(null);
          setSyncNote('Sync cancelled: nothing was deleted.');
          setPhase('done');
        }}
        onConfirm={async () => {
          if (!settings || !absent) return;
          const deleted = await deleteItems(sessionImportApi(), settings.target, absent);
          setAbsent(null);
          setSyncNote(`Sync: deleted ${formatNumber(deleted)} item${deleted === 1 ? '' : 's'} no longer in the file.`);
          setPhase('done');
        }}
      />
    </>
  );
}
