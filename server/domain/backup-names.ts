/**
 * How backups are named, for the backup itself (storage/backup.ts), the scheduled backups and
 * their clean-up, and the dashboard's download.
 */

/**
 * A backup's time in its name: UTC to the millisecond (earlier versions: to the second), so names
 * sort in the order taken.
 */
const TIME = String.raw`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d(?:-\d{3})?`;

/**
 * A backup's file name: whose it is (`label`, see `backupLabel`), so that LocalIQs sharing a
 * folder tell their backups apart, and when it was taken, so that a second backup right after one
 * gets a name of its own.
 */
export function backupFileName(at: Date, label: string): string {
  return `localiq-backup-${label}-${at.toISOString().slice(0, 23).replace(/[:.]/g, '-')}.db`;
}

/**
 * A label for one LocalIQ's backups: the machine's name, for whoever looks into the folder, and a
 * random part, for two LocalIQs on one machine.
 */
export function backupLabel(hostName: string, random: string): string {
  const host = hostName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32);
  return `${host || 'localiq'}-${random}`;
}

/**
 * The names `backupFileName` gives with this label, and those earlier versions gave (no label),
 * which only a LocalIQ that had the folder to itself wrote: the only files a backup folder's
 * clean-up touches. The time is the first group, for sorting.
 */
export function backupFilePattern(label: string): RegExp {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^localiq-backup-(?:${escaped}-)?(${TIME})\\.db$`);
}

/** A backup is written under this name (`<file>.partial`) until it is whole. */
export const partialBackupName = (file: string) => `${file}.partial`;
/** What a backup named by `backupFileName` with this label and cut short leaves behind. */
export function partialBackupFilePattern(label: string): RegExp {
  return new RegExp(`${backupFilePattern(label).source.slice(0, -1)}\\.partial$`);
}
