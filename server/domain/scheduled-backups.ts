import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Refusal } from './errors.ts';
import type { BackgroundPass } from './background-pass.ts';
import { backupFileName, backupFilePattern, backupLabel, partialBackupFilePattern } from './backup-names.ts';

/** The settings kept in the database (storage/settings-repo.ts): the schedule travels with it. */
export type SettingsStore = { get(key: string): string | null; set(key: string, value: string): void };

/** A backup every day at `hour` (the server's local time) into `folder`, keeping the newest `keep`. */
export type BackupSchedule = { enabled: boolean; folder: string | null; hour: number; keep: number };

/** One backup the schedule (or "Back up now") ran. Times in milliseconds since the epoch. */
export type BackupRun = {
  startedAt: number;
  finishedAt: number;
  ok: boolean;
  file: string | null;
  bytes: number | null;
  error: string | null;
  /** Older backups this run removed (before the backup and after it), to keep the newest `keep`. */
  removed: number;
};

export type BackupScheduleState = {
  schedule: BackupSchedule;
  running: boolean;
  /** When the next backup is due, or null when none is scheduled. */
  nextRunAt: number | null;
  lastRun: BackupRun | null;
  lastSuccess: { at: number; file: string; bytes: number } | null;
};

/** A schedule refused, with the field to fix. */
export class BackupScheduleError extends Refusal {
  constructor(
    override readonly field: keyof BackupSchedule,
    message: string,
  ) {
    super('invalid_input', message, field, 'The backup schedule was not saved.');
  }
}

/** Writes a consistent backup of the data folder's database to `file`; an abort stops it (storage/backup.ts, backupInThread). */
export type BackUp = (dataDir: string, file: string, signal: AbortSignal) => Promise<{ file: string; bytes: number }>;

type StoredSchedule = BackupSchedule & { changedAt: number };
type StoredRuns = { lastRun: BackupRun | null; lastSuccess: BackupScheduleState['lastSuccess'] };

const SCHEDULE_SETTING = 'backup_schedule';
const RUNS_SETTING = 'backup_runs';
const LABEL_SETTING = 'backup_label';
const DEFAULT_SCHEDULE: StoredSchedule = { enabled: false, folder: null, hour: 3, keep: 7, changedAt: 0 };
const CHECK_EVERY_MS = 60_000;
/** A failed backup (a drive not connected, a full disk) is tried again this long after. */
export const RETRY_AFTER_MS = 60 * 60_000;

/**
 * Automatic backups for the Owner who set a folder in the dashboard: the same consistent copy as
 * `localiq backup`, once a day, the oldest removed beyond the number to keep. A day missed while
 * LocalIQ was not running is caught up within a minute of the next start. The schedule and the
 * outcome of the last run live in the settings table, so they travel with the database.
 */
export class ScheduledBackups implements BackgroundPass {
  /** A background pass (background-pass.ts): looks at the clock every minute. */
  readonly name = 'scheduled-backups';
  readonly intervalMs = CHECK_EVERY_MS;
  private running: Promise<BackupRun> | null = null;
  /** Aborted by `stop`: a backup under way ends with the server instead of holding it open. */
  private readonly stopping = new AbortController();
  private onRun: (run: BackupRun) => void = () => {};

  constructor(
    private readonly settings: SettingsStore,
    private readonly dataDir: string,
    private readonly backUp: BackUp,
    private readonly clock: () => number = Date.now,
  ) {}

  state(): BackupScheduleState {
    const stored = this.stored();
    const { changedAt: _changedAt, ...schedule } = stored;
    const runs = this.runs();
    return { schedule, running: this.running !== null, nextRunAt: nextRunAt(stored, runs.lastRun, this.clock()), ...runs };
  }

  /**
   * Saves a schedule whose folder exists, can be written and lies outside the data folder. The
   * next backup is at the next `hour` after now: saving a schedule never starts one at once.
   */
  setSchedule(input: BackupSchedule): BackupScheduleState {
    const folder = input.folder?.trim() ? checkFolder(input.folder.trim(), this.dataDir) : null;
    if (input.enabled && folder === null) throw new BackupScheduleError('folder', 'Choose the folder to write backups to.');
    const stored: StoredSchedule = { enabled: input.enabled, folder, hour: input.hour, keep: input.keep, changedAt: this.clock() };
    this.settings.set(SCHEDULE_SETTING, JSON.stringify(stored));
    return this.state();
  }

  /**
   * This LocalIQ's label in backup names, made once and kept with the database (so a restored
   * LocalIQ goes on with its own backups), letting LocalIQs share a backup folder.
   */
  label(): string {
    let label = this.settings.get(LABEL_SETTING);
    if (label === null) {
      label = backupLabel(os.hostname(), randomBytes(3).toString('hex'));
      this.settings.set(LABEL_SETTING, label);
    }
    return label;
  }

  /** `onRun` hears each backup that ran (scheduled or asked for), to log it. */
  reportTo(onRun: (run: BackupRun) => void): void {
    this.onRun = onRun;
  }

  /** The pass's run each minute: a backup when one is due (tick). */
  run(): Promise<BackupRun | null> {
    return this.tick();
  }

  /**
   * Stops a backup under way: it could hold a closing server for minutes. One cut short leaves
   * no file and is not recorded.
   */
  stop(): void {
    this.stopping.abort();
  }

  /** Runs the scheduled backup if it is due; resolves with its run, or null when none was due. */
  async tick(): Promise<BackupRun | null> {
    if (this.running || !isDue(this.stored(), this.runs().lastRun, this.clock())) return null;
    return this.runNow();
  }

  /** Backs up into the schedule's folder now (or joins the backup under way). */
  runNow(): Promise<BackupRun> {
    this.running ??= this.backUpNow(this.stored()).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async backUpNow(schedule: StoredSchedule): Promise<BackupRun> {
    const startedAt = this.clock();
    let run: BackupRun;
    try {
      const folder = schedule.folder;
      if (folder === null) throw new Error('No backup folder is set.');
      if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
        throw new Error(`The backup folder ${folder} is not there. Is its drive connected?`);
      }
      const label = this.label();
      removePartialBackups(folder, label);
      // Also before: a number to keep lowered to make room takes effect on a disk too full to back up.
      let removed = removeOldBackups(folder, label, schedule.keep);
      const result = await this.backUp(this.dataDir, path.join(folder, backupFileName(new Date(startedAt), label)), this.stopping.signal);
      removed += removeOldBackups(folder, label, schedule.keep);
      run = { startedAt, finishedAt: this.clock(), ok: true, file: result.file, bytes: result.bytes, error: null, removed };
    } catch (error) {
      run = { startedAt, finishedAt: this.clock(), ok: false, file: null, bytes: null, error: (error as Error).message, removed: 0 };
    }
    // Stopped meanwhile: the database may be closed already.
    if (this.stopping.signal.aborted) return run;
    const previous = this.runs();
    const lastSuccess = run.ok ? { at: run.finishedAt, file: run.file!, bytes: run.bytes! } : previous.lastSuccess;
    this.settings.set(RUNS_SETTING, JSON.stringify({ lastRun: run, lastSuccess } satisfies StoredRuns));
    this.onRun(run);
    return run;
  }

  private stored(): StoredSchedule {
    const raw = this.settings.get(SCHEDULE_SETTING);
    return raw === null ? DEFAULT_SCHEDULE : (JSON.parse(raw) as StoredSchedule);
  }

  private runs(): StoredRuns {
    const raw = this.settings.get(RUNS_SETTING);
    return raw === null ? { lastRun: null, lastSuccess: null } : (JSON.parse(raw) as StoredRuns);
  }
}

/** The latest time at `hour`:00 (local) at or before `now`. */
export function lastSlot(now: number, hour: number): number {
  const slot = new Date(now);
  slot.setHours(hour, 0, 0, 0);
  if (slot.getTime() > now) {
    slot.setDate(slot.getDate() - 1);
    slot.setHours(hour, 0, 0, 0);
  }
  return slot.getTime();
}

function nextSlot(now: number, hour: number): number {
  const slot = new Date(lastSlot(now, hour));
  slot.setDate(slot.getDate() + 1);
  slot.setHours(hour, 0, 0, 0);
  return slot.getTime();
}

/**
 * Due when no backup was taken (or tried) since the latest slot, counting from when the schedule
 * was saved; or an hour after a failed one.
 */
export function isDue(schedule: StoredSchedule, lastRun: BackupRun | null, now: number): boolean {
  if (!schedule.enabled || schedule.folder === null) return false;
  const since = Math.max(schedule.changedAt, lastRun?.startedAt ?? 0);
  if (since < lastSlot(now, schedule.hour)) return true;
  return lastRun !== null && !lastRun.ok && now - lastRun.startedAt >= RETRY_AFTER_MS;
}

function nextRunAt(schedule: StoredSchedule, lastRun: BackupRun | null, now: number): number | null {
  if (!schedule.enabled || schedule.folder === null) return null;
  if (isDue(schedule, lastRun, now)) return now;
  const next = nextSlot(now, schedule.hour);
  return lastRun !== null && !lastRun.ok ? Math.min(next, lastRun.startedAt + RETRY_AFTER_MS) : next;
}

/** Whether an existing folder is the data folder or lies inside it, links resolved. */
export function liesInDataFolder(folder: string, dataDir: string): boolean {
  const fromData = path.relative(fs.realpathSync(dataDir), fs.realpathSync(folder));
  return fromData === '' || (fromData !== '..' && !fromData.startsWith(`..${path.sep}`) && !path.isAbsolute(fromData));
}

function checkFolder(folder: string, dataDir: string): string {
  if (!path.isAbsolute(folder)) {
    throw new BackupScheduleError('folder', 'Give the backup folder as a full path, such as /mnt/nas/localiq or D:\\Backups\\LocalIQ.');
  }
  const resolved = path.resolve(folder);
  if (!fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) {
    throw new BackupScheduleError('folder', `There is no folder at ${resolved}. Create it (or connect its drive) first.`);
  }
  if (liesInDataFolder(resolved, dataDir)) {
    throw new BackupScheduleError('folder', 'Choose a folder outside the data folder: a backup there would be lost with it.');
  }
  try {
    fs.accessSync(resolved, fs.constants.W_OK);
  } catch {
    throw new BackupScheduleError('folder', `LocalIQ may not write to ${resolved}.`);
  }
  return resolved;
}

/** Removes all but the newest `keep` of this LocalIQ's backups from the folder; no other file is touched. */
function removeOldBackups(folder: string, label: string, keep: number): number {
  const pattern = backupFilePattern(label);
  const backups = fs
    .readdirSync(folder)
    .flatMap((name) => {
      const time = pattern.exec(name)?.[1];
      return time === undefined ? [] : [{ name, time }];
    })
    .sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  const old = backups.slice(0, Math.max(0, backups.length - keep));
  for (const { name } of old) fs.rmSync(path.join(folder, name), { force: true });
  return old.length;
}

/**
 * A backup cut short by a crash (or a killed LocalIQ) leaves its `.partial` file; this LocalIQ
 * runs one at a time, and another LocalIQ's may be under way.
 */
function removePartialBackups(folder: string, label: string): void {
  const pattern = partialBackupFilePattern(label);
  for (const name of fs.readdirSync(folder)) {
    if (pattern.test(name)) fs.rmSync(path.join(folder, name), { force: true });
  }
}
