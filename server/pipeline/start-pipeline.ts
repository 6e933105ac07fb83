import type { Config } from '../config.ts';
import type { DiskCondition } from '../domain/disk-condition.ts';
import type { JobQueue } from '../domain/job-queue.ts';
import type { MonitorService } from '../domain/monitor.ts';
import type { ThroughputMeter } from '../domain/throughput.ts';
import type { QueryEmbedder } from '../embedders/query-embedder.ts';
import type { EmbeddingModel } from '../indexes/embedding-model.ts';
import type { Db } from '../storage/db.ts';
import { JobRuns } from '../storage/jobs/job-runs.ts';
import { prepareTextPhase } from '../storage/jobs/text-phase.ts';
import type { BatchReport } from './process-batch.ts';
import { TextThread } from './text-thread.ts';
import { WorkerPool } from './worker-pool.ts';

export type Pipeline = { pool: WorkerPool; text: TextThread; stop(): Promise<void> };

/** The parts of the server's services the pipeline works with (main.ts passes them all). */
export type PipelineServices = {
  /** Recovery of jobs a crash left in progress. */
  db: Db;
  /** Pushes wake idle workers. */
  queue: Pick<JobQueue, 'onPushed'>;
  /** The workers say which model they loaded. */
  embedding: Pick<EmbeddingModel, 'activate'>;
  /** Finished batches feed the throughput estimate and the live monitor. */
  throughput: Pick<ThroughputMeter, 'record' | 'recordWork'>;
  monitor: Pick<MonitorService, 'notify'>;
  disk: Pick<DiskCondition, 'processingPaused' | 'processingResumed'>;
  /** Search embeds its queries with the workers' models while they run. */
  queryEmbedder: Pick<QueryEmbedder, 'share'>;
  /** Jobs that succeeded or failed for good become job.succeeded / job.failed webhook events. */
  webhooks?: { jobsEnded(ended: BatchReport['ended']): void; jobsRecovered(jobIds: number[]): void };
};

/**
 * Recovers what a crash left behind, then starts the workers and the text phase's thread and
 * connects them to the queue: pushes wake them (until `stop`), the workers' batches feed the
 * throughput estimate, and search's queries are embedded with their models.
 */
export async function startPipeline(
  config: Pick<Config, 'dataDir' | 'workers' | 'embedder' | 'batchJobs' | 'overlapTokens'> & Partial<Pick<Config, 'extraction'>>,
  services: PipelineServices,
  log: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Promise<Pipeline> {
  const runs = new JobRuns(services.db);
  const textPhase = prepareTextPhase(services.db);
  // Text phases a crash interrupted wait again (a text written already is refused by its seq).
  textPhase.release();
  // Queuing webhook events writes to SQLite from the pool's message handler: an error there (the
  // database busy past its timeout) costs those events, said in the log, never the server.
  const tellWebhooks = (queue: () => void) => {
    try {
      queue();
    } catch (error) {
      log(`webhook events of finished jobs could not be queued: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const interrupted = runs.recoverStale(Date.now());
  if (interrupted > 0) log(`Recovered ${interrupted} job(s) the last run left in progress: queued again to run one at a time, or settled.`);
  let modelDimension = 0;
  const pool = new WorkerPool({
    dataDir: config.dataDir,
    workers: config.workers,
    embedder: config.embedder,
    batchJobs: config.batchJobs,
    overlapTokens: config.overlapTokens,
    ...(config.extraction ? { extraction: config.extraction } : {}),
    onReady: (embedderId, dimension) => {
      modelDimension = dimension;
      services.embedding.activate(embedderId, dimension);
    },
    onBatch: (report, _jobs, ms) => {
      if (report.failed > 0) log(`${report.failed} job(s) failed after their last attempt: GET /jobs?status=failed lists them with their errors.`);
      services.throughput.record(report.succeeded + report.skipped + report.failed + report.cancelled);
      services.throughput.recordWork(report.cost, ms / config.workers);
      services.monitor.notify();
      if (report.ended.length > 0) tellWebhooks(() => services.webhooks?.jobsEnded(report.ended));
    },
    onWorkerLost: (jobIds, cause) => {
      const recovered = runs.recoverStale(Date.now(), { jobIds, ...(cause === undefined ? {} : { cause }) });
      if (recovered > 0) log(`Recovered ${recovered} job(s) a pipeline worker held when it stopped: queued again to run one at a time, or settled.`);
      // A job that crashed its worker too often fails as a poison here, not in a batch report.
      tellWebhooks(() => services.webhooks?.jobsRecovered(jobIds));
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
  // The text phase in a thread of its own, holding the model's tokenizer only: its turns never
  // wait for a model call (docs/pipeline.md, "Two phases"). It needs the vector size the workers'
  // model reported. A claim of texts runs in one turn of that thread: what it held when it died
  // waits again, for its replacement.
  const text = new TextThread({
    dataDir: config.dataDir,
    embedder: config.embedder,
    dimension: modelDimension,
    overlapTokens: config.overlapTokens,
    onLost: () => textPhase.release(),
    log,
  });
  try {
    await text.start();
  } catch (error) {
    // Without it every item still becomes searchable, text and vectors together, from the workers.
    log(`${(error as Error).message}: items become searchable once embedded`);
  }
  const unsubscribe = services.queue.onPushed(() => {
    text.wake();
    pool.wake();
  });
  services.queryEmbedder.share(pool);
  return {
    pool,
    text,
    async stop() {
      unsubscribe();
      services.queryEmbedder.share(null);
      await Promise.all([text.stop(), pool.stop()]);
    },
  };
}
