import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { liesInDataFolder } from '../domain/scheduled-backups.ts';
import { forgetServerSecret, secretFits } from '../secrets/server-secret.ts';
import { ApiKeyRepo } from '../storage/api-key-repo.ts';
import { backupContents, backupInThread, openBackup, replaceDatabase, type BackupContents } from '../storage/backup.ts';
import { openDatabase } from '../storage/db.ts';
import { SettingsRepo } from '../storage/settings-repo.ts';

/** The lowest CPU priority: a backup yields the cores to the server it runs beside (bench/backup.ts). */
const BACKGROUND_PRIORITY = 19;

export const BACKUP_USAGE = `  backup FILE [--json]                    write a consistent copy of the database to FILE while LocalIQ runs
  restore FILE [--new-secret] [--json]    put a backup in place of the database (LocalIQ stopped; the old one is kept);
                                          --new-secret: if the backup's server secret is not here, revoke its API keys`;

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function describe(c: BackupContents): string {
  return `schema ${c.schemaVersion}, ${count(c.items, 'item')}, ${count(c.chunks, 'chunk')}, ${count(c.jobs, 'job')}, ${count(c.apiKeys, 'API key')}, ${count(c.originals, 'uploaded file')}`;
}

export async function backupCommand(args: string[], usageError: (message: string) => Error): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
  if (positionals.length !== 1) throw usageError('backup needs the one file to write.');
  const dataDir = loadConfig().dataDir;
  const folder = path.dirname(path.resolve(positionals[0]!));
  if (fs.existsSync(folder) && fs.existsSync(dataDir) && liesInDataFolder(folder, dataDir)) {
    throw usageError('Write the backup outside the data folder: a backup there would be lost with it.');
  }
  // Before the copy's thread starts, which takes its priority from this one.
  os.setPriority(BACKGROUND_PRIORITY);
  const started = performance.now();
  // On a thread, so that this one flushes the copy to disk as it grows (backupInThread).
  const result = await backupInThread(dataDir, positionals[0]!);
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...result, dataDir, seconds }, null, 2)}\n`);
  } else {
    process.stdout.write(
      `Backed up ${dataDir} to ${result.file} (${(result.bytes / 1e6).toFixed(1)} MB, ${seconds} s): ${describe(result)}.\n` +
        'It holds the API keys as hashes, not the server secret that checks them (see `localiq restore`).\n',
    );
  }
  return 0;
}

export async function restoreCommand(args: string[], usageError: (message: string) => Error): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'new-secret': { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) throw usageError('restore needs the one backup file to restore.');
  const file = path.resolve(positionals[0]!);
  const dataDir = loadConfig().dataDir;

  const backup = openBackup(file);
  let contents: BackupContents;
  let fits: boolean;
  try {
    contents = backupContents(backup);
    fits = await secretFits(dataDir, new SettingsRepo(backup));
  } finally {
    backup.close();
  }
  if (!fits && !values['new-secret']) {
    process.stderr.write(
      `localiq: the API keys in ${file} were made with a server secret that ${dataDir} does not have ` +
        '(a backup from another machine or data folder). Nothing was changed. Either restore it where it was made ' +
        "(for a file store, copying that folder's server-secret file into this one is the same), " +
        'or restore with --new-secret: its API keys are revoked (create new ones with `localiq keys create`) ' +
        "and the assistant's endpoint key must be entered again.\n",
    );
    return 1;
  }

  const { keptAs } = replaceDatabase(dataDir, file);
  let revokedApiKeys = 0;
  if (!fits) {
    const db = openDatabase(dataDir);
    try {
      db.transaction(() => {
        forgetServerSecret(new SettingsRepo(db));
        revokedApiKeys = new ApiKeyRepo(db).revokeAll(Date.now());
      })();
    } finally {
      db.close();
    }
  }

  if (values.json) {
    process.stdout.write(`${JSON.stringify({ file, dataDir, keptAs, ...contents, revokedApiKeys }, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(
    [
      `Restored ${file} into ${dataDir}: ${describe(contents)}.`,
      keptAs ? `The database it replaced is kept as ${keptAs}.` : 'There was no database here before.',
      ...(fits
        ? []
        : [
            `The backup's server secret is not here: ${count(revokedApiKeys, 'API key was', 'API keys were')} revoked; create new ones with ` +
              "`localiq keys create`, and enter the assistant's endpoint key again in the dashboard.",
          ]),
      'Start LocalIQ to use it.',
    ].join('\n') + '\n',
  );
  return 0;
}
