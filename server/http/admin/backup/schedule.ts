import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AdminBackupRun, AdminBackupState } from '../../../../common/contract/admin.ts';
import { safeText } from '../../../../common/contract/text-rules.ts';
import { type BackupRun, type BackupScheduleState } from '../../../domain/scheduled-backups.ts';
import type { Services } from '../../../services.ts';
import { isoTime } from '../../edge/iso-time.ts';

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

/** `/backup/schedule` and `/backup/run`: automatic backups into a folder, for the Owner; both answer with the schedule's state. */
export const backupScheduleRoutes: FastifyPluginAsyncZod<Pick<Services, 'backups'>> = async (app, { backups }) => {
  app.get('/backup/schedule', { config: { admin: 'owner' } }, async () => stateView(backups.state()));

  app.put('/backup/schedule', { config: { admin: 'owner' }, schema: { body: backupScheduleSchema } }, async (request) => {
    return stateView(backups.setSchedule(request.body));
  });

  /** Backs up into the schedule's folder now; answers once it is written (or failed: see lastRun). */
  app.post('/backup/run', { config: { admin: 'owner' } }, async () => {
    await backups.runNow();
    return stateView(backups.state());
  });
};
