import { type FormEvent, useEffect, useState } from 'react';
import type { AdminBackupState } from '../../../../common/contract/admin.ts';
import { BACKUP_DOWNLOAD_URL, getBackupState, runBackup, saveBackupSchedule } from '../../api/backup.ts';
import { ErrorNote, errorText, useLoad } from '../../components/ui.tsx';
import { formatBytes, formatDate } from '../../format.ts';

const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
const WARNING_CHECK_MS = 5 * 60_000;

function LastBackup({ state }: { state: AdminBackupState }) {
  const { lastRun, lastSuccess } = state;
  return (
    <div data-testid="backup-status">
      {state.running ? <p role="status">Backing up…</p> : null}
      <p>
        {lastSuccess ? (
          <>
            Last backup: {formatDate(lastSuccess.at)}, {formatBytes(lastSuccess.bytes)}, <code>{lastSuccess.file}</code>
          </>
        ) : (
          'No backup in the folder yet.'
        )}
      </p>
      {lastRun && !lastRun.ok ? (
        <p className="error" role="alert">
          The backup at {formatDate(lastRun.startedAt)} failed: {lastRun.error}
        </p>
      ) : null}
      {state.nextRunAt ? <p className="hint">Next backup: {formatDate(state.nextRunAt)}.</p> : null}
    </div>
  );
}

/** Automatic daily backups into a folder (a NAS share, a USB drive), the oldest removed beyond a number. */
function ScheduleForm({ state, onSaved }: { state: AdminBackupState; onSaved: (next: AdminBackupState) => void }) {
  const [error, setError] = useState<string | null>(null);
  const { schedule } = state;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    try {
      onSaved(
        await saveBackupSchedule({
          enabled: form.get('enabled') === 'on',
          folder: String(form.get('folder') ?? '').trim() || null,
          hour: Number(form.get('hour')),
          keep: Number(form.get('keep')),
        }),
      );
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <form className="form" onSubmit={(e) => void submit(e)} aria-labelledby="auto-backup-heading">
      <h3 id="auto-backup-heading">Automatic backups</h3>
      <label className="check">
        <input type="checkbox" name="enabled" defaultChecked={schedule.enabled} /> Back up every day
      </label>
      <div className="field">
        <label htmlFor="backup-folder">Folder (a full path on the server, outside the data folder)</label>
        <input id="backup-folder" name="folder" placeholder="/mnt/nas/localiq" defaultValue={schedule.folder ?? ''} />
      </div>
      <div className="field">
        <label htmlFor="backup-hour">At (the server's time)</label>
        <select id="backup-hour" name="hour" defaultValue={schedule.hour}>
          {HOURS.map((hour) => (
            <option key={hour} value={hour}>
              {String(hour).padStart(2, '0')}:00
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="backup-keep">Backups to keep</label>
        <input id="backup-keep" name="keep" type="number" min={1} max={365} defaultValue={schedule.keep} />
      </div>
      <button type="submit" className="primary">
        Save schedule
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/** The Owner's only: a backup holds every user's password hash and every key's hash. */
export function BackupPanel() {
  const { data, error, setData } = useLoad((signal) => getBackupState(signal), []);
  const [runError, setRunError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [saved, setSaved] = useState(false);
  const runNow = async () => {
    setRunning(true);
    try {
      setData(await runBackup());
      setRunError(null);
    } catch (e) {
      setRunError(errorText(e));
    } finally {
      setRunning(false);
    }
  };
  return (
    <section className="panel" aria-labelledby="backup-heading">
      <h2 id="backup-heading">Backup</h2>
      <p>
        A consistent copy of everything LocalIQ keeps (items, their vectors, jobs, keys, users, settings and usage), taken
        while it runs.
      </p>
      <p>
        <a className="button secondary" href={BACKUP_DOWNLOAD_URL} download>
          Download a backup
        </a>
      </p>
      <ErrorNote error={error ?? runError} />
      {data ? (
        <>
          {/* Keyed by the saved schedule: the form shows it as the server stored it (the folder's full path). */}
          <ScheduleForm
            key={JSON.stringify(data.schedule)}
            state={data}
            onSaved={(next) => {
              setData(next);
              setSaved(true);
            }}
          />
          {saved ? <p role="status">Schedule saved.</p> : null}
          <LastBackup state={data} />
          {data.schedule.folder ? (
            <button type="button" className="secondary" disabled={running || data.running} onClick={() => void runNow()}>
              {running ? 'Backing up…' : 'Back up to the folder now'}
            </button>
          ) : null}
        </>
      ) : null}
      <p className="hint">
        To restore one, close LocalIQ and run <code>localiq restore FILE</code>. Restored on another machine, its API keys
        must be created again. Several LocalIQs may share a folder: each names its backups after this machine and removes
        only its own oldest.
      </p>
    </section>
  );
}

/**
 * A failed automatic backup, shown to the Owner on every screen (but Settings, which shows it in
 * its panel): a backup that fails unnoticed is no backup. Checked on load and every five minutes.
 */
export function BackupWarning() {
  const { data, reload } = useLoad((signal) => getBackupState(signal), []);
  useEffect(() => {
    const timer = setInterval(reload, WARNING_CHECK_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const failed = data?.lastRun && !data.lastRun.ok ? data.lastRun : null;
  if (!failed) return null;
  return (
    <p className="error" role="alert">
      The automatic backup at {formatDate(failed.startedAt)} failed: {failed.error} <a href="#/settings">Backup settings</a>
    </p>
  );
}
