import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from '../../server/app.ts';
import { type Config, loadConfig } from '../../server/config.ts';
import type { NewApiKey } from '../../server/domain/api-key-service.ts';
import { openServices, type Services, type ServicesOptions } from '../../server/services.ts';
import { tempDataDir } from './temp-data.ts';

export type TestApp = {
  app: FastifyInstance;
  services: Services;
  dataDir: string;
  config: Config;
  /** Creates a key and returns its value. */
  key(input?: Partial<NewApiKey>): string;
  close(): Promise<void>;
};

/**
 * The real app on a real SQLite file in a fresh temporary data folder. Pushes are committed by the
 * ingest writer's thread, as in the server; `jobWriter: 'in-process'` commits them in the event
 * loop instead, so a unit test (test/README.md) starts no thread.
 */
export async function createTestApp(
  overrides: Partial<Config> = {},
  dataDir = tempDataDir(),
  { clock, jobWriter, ...appOptions }: Pick<AppDeps, 'rendererDir' | 'logStream'> & ServicesOptions = {},
): Promise<TestApp> {
  const config = loadConfig(
    { LOCALIQ_DATA_DIR: dataDir, LOCALIQ_SECRET_STORE: 'file', LOCALIQ_LOG_LEVEL: 'silent' },
    overrides,
  );
  const services = await openServices(config, { clock, jobWriter });
  const app = await buildApp({ config, ...services, ...appOptions });
  await app.ready();
  return {
    app,
    services,
    dataDir,
    config,
    key: (input = {}) =>
      services.keys.create({ name: 'test key', scopes: ['iq:import', 'iq:read', 'usage:read', 'articles:read'], ...input })
        .value,
    async close() {
      await app.close();
      services.close();
    },
  };
}

export function countRows(services: Services, table: string): number {
  return (services.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}
