import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AdminBackupRun, AdminBackupState, AdminSettings } from '../../../common/contract/admin.ts';
import { safeText } from '../../../common/contract/text-rules.ts';
import { BackupScheduleError, type BackupRun, type BackupScheduleState, type ScheduledBackups } from '../../domain/scheduled-backups.ts';
import { backupFileName } from '../../domain/backup-names.ts';
import { backupInThread } from '../../storage/backup.ts';
import { ApiError } from '../edge/api-error.ts';
import { isoTime } from '../edge/iso-time.ts';

export type BackupRoutesOptions = { settings: () => AdminSettings; backups: ScheduledBackups };

const backupScheduleSchema = z.strictObject({
  enabled: z.boolean(),
  /** A full path; null or "" only while automatic backups are off. */
  folder: safeText(4_096).nullable(),
  /** The hour of the day, the server's local time. */
  hour: z.number().int().min(0).max(23),
  keep: z.number().int().min(1).max(365),
});

const runView = (run: BackupRun): AdminBackupRun => ({ ...run, startedAt: isoTime(run.startedAt), finishedAt: isoTime(run.finishedAt) });

function stateView(state: BackupScheduleState): AdminBackupState {
  return {
    schedule: state.schedule,
    running: state.running,
    nextRunAt: state.nextRunAt === null ? null : isoTime(state.nextRunAt),
    lastRun: state.lastRun && runView(state.lastRun),
    lastSuccess: state.lastSuccess && { ...state.lastSuccess, at: isoTime(state.lastSuccess.at) },
  };
}

/** Where backups wait while they are downloaded; one left by a crash is removed after a day. */
const DOWNLOADS = 'backup-downloads';
const LEFTOVER_MS = 24 * 60 * 60_000;

function removeLeftovers(folder: string, now: number): void {
  for (const name of fs.readdirSync(folder)) {
    const file = path.join(folder, name);
    if (now - fs.statSync(file).mtimeMs > LEFTOVER_MS) fs.rmSync(file, { force: true });
  }
}

/**
 * A backup of the database as a download, for the Owner (it holds every user's password hash and
 * every key's hash): the same consistent copy as `localiq backup`, written on a thread of its own
 * into the data folder, sent, then removed. A GET, since it changes nothing: a link downloads it.
 */
export const backupRoutes: FastifyPluginAsyncZod<BackupRoutesOptions> = async (app, { settings, backups }) => {
  // A download under way would hold a closing server until its copy is written: closing stops it.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  app.get('/backup', { config: { admin: 'owner' } }, async (_request, reply) => {
    const { dataDir } = settings();
    const folder = path.join(dataDir, DOWNLOADS);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    removeLeftovers(folder, Date.now());
    const file = path.join(folder, `${randomUUID()}.db`);
    try {
      await backupInThread(dataDir, file, closing.signal);
    } catch (error) {
      if (!closing.signal.aborted) throw error;
      throw new ApiError('service_unavailable', 'LocalIQ is closing; download a backup once it runs again.');
    }
    reply.raw.once('close', () => fs.rmSync(file, { force: true }));
    return reply
      .header('content-type', 'application/vnd.sqlite3')
      .header('content-disposition', `attachment; filename="${backupFileName(new Date(), backups.label())}"`)
      .send(fs.createReadStream(file));
  });

  app.get('/backup/schedule', { config: { admin: 'owner' } }, async () => stateView(backups.state()));

  app.put('/backup/schedule', { config: { admin: 'owner' }, schema: { body: backupScheduleSchema } }, async (request) => {
    try {
      return stateView(backups.setSchedule(request.body));
    } catch (error) {
      if (error instanceof BackupScheduleError) throw new ApiError('invalid_body', 'The backup schedule was not saved.', [{ path: error.field, message: error.message }]);
      throw error;
    }
  });

  /** Backs up into the schedule's folder now; answers once it is written (or failed: see lastRun). */
  app.post('/backup/run', { config: { admin: 'owner' } }, async () => {
    await backups.runNow();
    return stateView(backups.state());
  });
};
