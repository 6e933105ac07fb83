import type { FastifyInstance } from 'fastify';
import { buildApp, nextRequestId } from './app.ts';
import type { Config } from './config.ts';
import { startBackgroundPasses } from './background-passes.ts';
import { buildPublicApp } from './http/public/public-app.ts';
import { startPipeline, type Pipeline } from './pipeline/start-pipeline.ts';
import { openServices, type Services } from './services.ts';
import { ensureDataDir } from './storage/db.ts';
import { lockDataFolder } from './storage/server-lock.ts';
import { removeServerAddress, writeServerAddress } from './storage/server-address.ts';
import { createLogs, type Logs } from './logging.ts';

export type RunningServer = {
  app: FastifyInstance;
  services: Services;
  pipeline: Pipeline | null;
  logs: Logs;
  url: string;
  /** The public listener (the visitor side alone), when LOCALIQ_PUBLIC_PORT turns it on. */
  publicApp: FastifyInstance | null;
  publicUrl: string | null;
  stop(): Promise<void>;
};

/** config → lock and open the data folder → start the pipeline workers → build the app → listen. */
export async function startServer(config: Config, logs: Logs = createLogs(config)): Promise<RunningServer> {
  ensureDataDir(config.dataDir);
  const lock = lockDataFolder(config.dataDir);
  let services: Services;
  try {
    services = await openServices(config);
  } catch (error) {
    lock.release();
    throw error;
  }
  // Uploads the last run was receiving when it stopped: none was acknowledged, so none is kept.
  services.originals.clearIncoming();
  let pipeline: Pipeline | null = null;
  let app: FastifyInstance | null = null;
  let publicApp: FastifyInstance | null = null;
  try {
    pipeline = config.workers > 0 ? await startPipeline(config, services, (message) => logs.logger.warn(message)) : null;
    app = await buildApp({ config, ...services, logger: logs.logger });
    // The ingest writer thread takes a moment to load: ready before the first push can arrive.
    await services.queue.start();
    await app.listen({ host: config.host, port: config.port });
    if (config.publicListener) {
      publicApp = await buildPublicApp({
        ...services,
        trustedProxies: config.trustedProxies,
        logger: logs.logger,
        bodyTimeoutMs: config.bodyTimeoutMs,
        genReqId: nextRequestId,
      });
      await publicApp.listen(config.publicListener);
    }
  } catch (error) {
    await publicApp?.close();
    await app?.close();
    await pipeline?.stop();
    services.close();
    lock.release();
    throw error;
  }
  const url = listenUrl(app, config.host, config.port);
  const publicUrl = publicApp && config.publicListener ? listenUrl(publicApp, config.publicListener.host, config.publicListener.port) : null;
  // The CLI finds this server from the data folder alone (server/storage/server-address.ts).
  writeServerAddress(config.dataDir, {
    pid: process.pid,
    url,
    host: config.host,
    port: listenPort(app, config.port),
    publicUrl,
    startedAt: new Date().toISOString(),
  });
  let stopped = false;
  const running = app;
  // Search's in-memory indexes (vectors, keyword postings) load in the background, a millisecond
  // per event-loop turn, then follow the pipeline's writes every second (the index-follow pass).
  // Meanwhile keyword searches ask FTS5, and a search that needs the vectors waits for their load
  // (SearchService.queryVector).
  const loading = performance.now();
  // A re-index into another keyword language that a stop cut short goes on (KeywordReindexer).
  services.keywordReindexer.start();
  void Promise.all([services.keywords.load(), services.embedding.index()?.load()]).then(() =>
    running.log.info({ ms: Math.round(performance.now() - loading) }, 'search indexes loaded'),
  );
  // Retentions, webhook deliveries, question grouping, backups, website syncs: one list, one runner.
  const passes = startBackgroundPasses(services, config, logs.logger);
  return {
    app: running,
    services,
    pipeline,
    logs,
    url,
    publicApp,
    publicUrl,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Every pass's clock stops now; a backup and the syncs under way are told to stop, the
      // retentions end at their next page, deliveries in flight end by their timeout.
      const passesStopped = passes.stop();
      // The workers hear at once that they are to stop after the batch in hand, while the server
      // stops taking requests; the database closes once both are done.
      const pipelineStopped = pipeline?.stop();
      await publicApp?.close();
      await running.close();
      // No longer listening: the CLI is not to send here.
      removeServerAddress(config.dataDir);
      await passesStopped;
      await pipelineStopped;
      services.close();
      lock.release();
    },
  };
}

function listenPort(app: FastifyInstance, configuredPort: number): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : configuredPort;
}

function listenUrl(app: FastifyInstance, configuredHost: string, configuredPort: number): string {
  const port = listenPort(app, configuredPort);
  const host = configuredHost.includes(':') ? `[${configuredHost}]` : configuredHost;
  return `http://${host}:${port}`;
}
