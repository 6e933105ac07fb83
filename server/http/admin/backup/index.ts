import fs from 'node:fs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AdminSettings } from '../../../../common/contract/admin.ts';
import { backupFileName } from '../../../domain/backup-names.ts';
import type { Services } from '../../../services.ts';
import { writeBackupForDownload } from '../../../use-cases/backup-download.ts';
import { ApiError } from '../../edge/api-error.ts';

export type BackupRoutesOptions = Pick<Services, 'backups'> & { settings: () => AdminSettings };

/**
 * `GET /backup`: a backup of the database as a download, for the Owner (it holds every user's
 * password hash and every key's hash), written by the use case (use-cases/backup-download.ts),
 * sent, then removed. A GET, since it changes nothing: a link downloads it.
 */
export const backupRoutes: FastifyPluginAsyncZod<BackupRoutesOptions> = async (app, { settings, backups }) => {
  // A download under way would hold a closing server until its copy is written: closing stops it.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  app.get('/backup', { config: { admin: 'owner' } }, async (_request, reply) => {
    let file: string;
    try {
      file = await writeBackupForDownload(settings().dataDir, closing.signal);
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
};
