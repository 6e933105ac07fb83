import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AdminSettings } from '../../contract/admin.ts';
import { backupInThread } from '../../storage/backup.ts';

export type BackupRoutesOptions = { settings: () => AdminSettings };

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
export const backupRoutes: FastifyPluginAsyncZod<BackupRoutesOptions> = async (app, { settings }) => {
  app.get('/backup', { config: { admin: 'owner' } }, async (_request, reply) => {
    const { dataDir } = settings();
    const folder = path.join(dataDir, DOWNLOADS);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    removeLeftovers(folder, Date.now());
    const file = path.join(folder, `${randomUUID()}.db`);
    await backupInThread(dataDir, file);
    reply.raw.once('close', () => fs.rmSync(file, { force: true }));
    const name = `localiq-backup-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.db`;
    return reply
      .header('content-type', 'application/vnd.sqlite3')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(fs.createReadStream(file));
  });
};
