import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { openServices, type Services } from './services.ts';

export type RunningServer = { app: FastifyInstance; services: Services; url: string; stop(): Promise<void> };

/** config → open the data folder → build the app → listen. */
export async function startServer(config: Config): Promise<RunningServer> {
  const services = await openServices(config);
  const app = await buildApp({ config, keys: services.keys, queue: services.queue, items: services.items });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    services.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let stopped = false;
  return {
    app,
    services,
    url: `http://${host}:${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await app.close();
      services.close();
    },
  };
}
