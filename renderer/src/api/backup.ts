import { ADMIN_PREFIX, type AdminBackupSchedule, type AdminBackupState } from '../../../common/contract/admin.ts';
import { get, post, put } from './client.ts';

/** Backups (the Owner's): `/admin/api/backup`. */

export const getBackupState = (signal?: AbortSignal) => get<AdminBackupState>('/backup/schedule', signal);
export const saveBackupSchedule = (schedule: AdminBackupSchedule) => put<AdminBackupState>('/backup/schedule', schedule);
/** Backs up to the schedule's folder now. */
export const runBackup = () => post<AdminBackupState>('/backup/run');
/** The download link of a backup made on the spot. */
export const BACKUP_DOWNLOAD_URL = `${ADMIN_PREFIX}/backup`;
