import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AdminSettings } from '../../../common/contract/admin.ts';
import type { DiskCondition } from '../../domain/disk-condition.ts';

export type SettingsRoutesOptions = { settings: () => AdminSettings; disk: DiskCondition };

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLanAccess(host: string): boolean {
  return !LOOPBACK.has(host);
}

/** How to change the listen address: it is fixed at start, so it is an environment setting. */
export function lanAccessHelp(host: string, port: number): string {
  return isLanAccess(host)
    ? `LocalIQ listens on ${host}, so other machines on your network can reach it. To keep it on this machine only, start it with LOCALIQ_HOST=127.0.0.1.`
    : `LocalIQ listens on this machine only. To let other machines on your network reach it, start it with LOCALIQ_HOST=0.0.0.0 LOCALIQ_PORT=${port} (and protect the network).`;
}

export const settingsRoutes: FastifyPluginAsyncZod<SettingsRoutesOptions> = async (app, { settings, disk }) => {
  app.get('/settings', { config: { admin: 'member' } }, async () => settings());
  /** Whether the data folder's disk is full: every screen of the dashboard checks. */
  app.get('/disk', { config: { admin: 'member' } }, async () => disk.view());
};
