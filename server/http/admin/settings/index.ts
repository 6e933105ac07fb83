import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AdminSettings } from '../../../../common/contract/admin.ts';

export type SettingsRoutesOptions = { settings: () => AdminSettings };

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

/** `GET /settings`: how this LocalIQ runs (its address, data folder, embedder, workers), read-only. */
export const settingsRoutes: FastifyPluginAsyncZod<SettingsRoutesOptions> = async (app, { settings }) => {
  app.get('/settings', { config: { admin: 'member' } }, async () => settings());
};
