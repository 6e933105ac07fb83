import type { Config } from '../config.ts';
import type { Services } from '../services.ts';
import { JobRuns } from '../storage/jobs/job-runs.ts';
import { WorkerPool } from './worker-pool.ts';

export type Pipeline = { pool: WorkerPool; stop(): Promise<void> };

/**
 * Recovers what a crash left behind, then starts the workers and connects them to the queue:
 * pushes wake them, their batches feed the throughput estimate.
 */
export async function startPipeline(
  config: Pick<Config, 'dataDir' | 'workers' | 'embedder' | 'batchJobs' | 'overlapTokens'>,
  services: Services,
  log: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Promise<Pipeline> {
  const interrupted = new JobRuns(services.db).recoverStale(Date.now());
  if (interrupted > 0) log(`Recovered ${interrupted} job(s) the last run left in progress: queued again, or settled where a newer version waits.`);
  const pool = new WorkerPool({
    dataDir: config.dataDir,
    workers: config.workers,
    embedder: config.embedder,
    batchJobs: config.batchJobs,
    overlapTokens: config.overlapTokens,
    onReady: (embedderId, dimension) => services.embedding.activate(embedderId, dimension),
    onBatch: (report, _jobs, ms) => {
      if (report.failed > 0) log(`${report.failed} job(s) failed after their last attempt: GET /jobs?status=failed lists them with their errors.`);
      services.throughput.record(report.succeeded + report.skipped + report.failed + report.cancelled);
      services.throughput.recordWork(report.cost, ms / config.workers);
      services.monitor.notify();
    },
    onDiskFull: () => {
      if (services.disk.processingPaused()) {
        log('The disk holding the data folder is full: processing is paused until there is room (pushes are refused with 507 meanwhile).');
      }
    },
    onDiskOk: () => {
      log('The disk has room again: processing goes on.');
      services.disk.processingResumed();
    },
    log,
  });
  await pool.start();
  services.queue.onPushed = () => {
    pool.wake();
    services.monitor.notify();
  };
  return {
    pool,
    async stop() {
      services.queue.onPushed = () => services.monitor.notify();
      await pool.stop();
    },
  };
}
