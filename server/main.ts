import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { JobHistoryRetention } from './domain/job-history-retention.ts';
import { startPipeline, type Pipeline } from './pipeline/start-pipeline.ts';
import { openServices, type Services } from './services.ts';
import { ensureDataDir } from './storage/db.ts';
import { JobHistory } from './storage/job-history.ts';
import { lockDataFolder } from './storage/server-lock.ts';
import { createLogs, type Logs } from './logging.ts';

export type RunningServer = {
  app: FastifyInstance;
  services: Services;
  pipeline: Pipeline | null;
  logs: Logs;
  url: string;
  stop(): Promise<void>;
};

const INDEX_FOLLOW_MS = 1_000;

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
  let pipeline: Pipeline | null = null;
  let app: FastifyInstance | null = null;
  try {
    pipeline = config.workers > 0 ? await startPipeline(config, services, (message) => logs.logger.warn(message)) : null;
    app = await buildApp({ config, ...services, logger: logs.logger });
    // The ingest writer thread takes a moment to load: ready before the first push can arrive.
    await services.queue.start();
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app?.close();
    await pipeline?.stop();
    services.close();
    lock.release();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let stopped = false;
  const running = app;
  // Search's in-memory indexes (vectors, keyword postings) load in the background, a millisecond
  // per event-loop turn, then follow the pipeline's writes every second. Meanwhile keyword searches
  // ask FTS5, and a search that needs the vectors waits for their load (SearchService.queryVector).
  const followIndexes = () => {
    services.keywords.follow();
    services.embedding.index()?.follow();
  };
  const following = setInterval(followIndexes, INDEX_FOLLOW_MS);
  following.unref();
  const loading = performance.now();
  void Promise.all([services.keywords.load(), services.embedding.index()?.load()]).then(() =>
    running.log.info({ ms: Math.round(performance.now() - loading) }, 'search indexes loaded'),
  );
  const retention = new JobHistoryRetention(new JobHistory(services.db), config.jobHistoryDays, (removed) =>
    running.log.info({ removed, days: config.jobHistoryDays }, 'job history: removed finished jobs that newer jobs of their items replaced'),
  );
  retention.start();
  services.backups.start((run) =>
    run.ok
      ? running.log.info({ file: run.file, bytes: run.bytes, removed: run.removed, ms: run.finishedAt - run.startedAt }, 'backup written')
      : running.log.warn({ error: run.error }, 'backup failed'),
  );
  return {
    app: running,
    services,
    pipeline,
    logs,
    url: `http://${host}:${port}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(following);
      services.backups.stop();
      // The workers hear at once that they are to stop after the batch in hand, while the server
      // stops taking requests; the database closes once both are done.
      const pipelineStopped = pipeline?.stop();
      await running.close();
      await retention.stop();
      await pipelineStopped;
      services.close();
      lock.release();
    },
  };
}
