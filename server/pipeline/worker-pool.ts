import { Worker } from 'node:worker_threads';
import { workerModule } from '../worker-module.ts';
import type { EmbedderConfig } from '../embedders/index.ts';
import type { ExtractionLimits } from './extract/extractor.ts';
import type { BatchReport } from './process-batch.ts';
import type { FromPipelineWorker, PipelineWorkerData, ToPipelineWorker } from './worker-messages.ts';

export type WorkerPoolOptions = {
  dataDir: string;
  workers: number;
  embedder: EmbedderConfig;
  batchJobs: number;
  overlapTokens: number;
  extraction?: ExtractionLimits;
  /** Called on the main thread after each batch a worker finishes, with the time it took. */
  onBatch?: (report: BatchReport, jobs: number, ms: number) => void;
  onReady?: (embedderId: string, dimension: number) => void;
  /** A worker found the disk full and waits; a worker found room again. */
  onDiskFull?: () => void;
  onDiskOk?: () => void;
  log?: (message: string) => void;
  /** A worker that dies unexpectedly is replaced after this delay. */
  restartDelayMs?: number;
};

const { entry: ENTRY, module: MODULE } = workerModule('pipeline-worker');
const STOP_TIMEOUT_MS = 60_000;
const START_ATTEMPTS = 3;

type QueryWaiter = { resolve: (vectors: Float32Array[]) => void; reject: (error: Error) => void };

/**
 * Runs the pipeline in worker threads so the HTTP event loop stays free. Each worker claims its
 * own jobs from the database; the pool only starts, wakes, replaces and stops them, and hands
 * search's queries to them (`embedQuery`), so the server holds no other copy of the model.
 */
export class WorkerPool {
  private readonly workers = new Set<Worker>();
  /** Workers whose model is loaded, each with the queries it was handed and has not answered. */
  private readonly ready = new Map<Worker, Map<number, QueryWaiter>>();
  private nextQueryId = 1;
  private stopping = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  /**
   * Resolves when every worker has loaded its model and is claiming jobs. A worker that cannot
   * start is tried again (START_ATTEMPTS in all); if one still cannot, the others are stopped
   * before the error is thrown, so none reports ready to a server that is closing.
   */
  async start(): Promise<void> {
    const startOne = async (attempt = 1): Promise<void> => {
      try {
        await this.spawn();
      } catch (error) {
        if (attempt >= START_ATTEMPTS || this.stopping) throw error;
        this.options.log?.(`${(error as Error).message}; trying again`);
        await startOne(attempt + 1);
      }
    };
    try {
      await Promise.all(Array.from({ length: this.options.workers }, () => startOne()));
    } catch (error) {
      this.stopping = true;
      await Promise.all([...this.workers].map((worker) => worker.terminate()));
      throw error;
    }
  }

  /**
   * Embeds search's texts with a worker's model: the worker with the fewest queries in hand takes
   * them between two of its own model calls. Null when no worker is ready (starting, replaced
   * after a crash, or stopping): the caller embeds them elsewhere.
   */
  embedQuery(texts: string[]): Promise<Float32Array[]> | null {
    if (this.stopping) return null;
    let chosen: [Worker, Map<number, QueryWaiter>] | null = null;
    for (const entry of this.ready) if (!chosen || entry[1].size < chosen[1].size) chosen = entry;
    if (!chosen) return null;
    const [worker, waiting] = chosen;
    // The next query starts from another worker when both have none in hand.
    this.ready.delete(worker);
    this.ready.set(worker, waiting);
    const id = this.nextQueryId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ type: 'embed-query', id, texts } satisfies ToPipelineWorker);
    });
  }

  /** Tells idle workers that new jobs are queued. */
  wake(): void {
    for (const worker of this.workers) worker.postMessage({ type: 'wake' } satisfies ToPipelineWorker);
  }

  /** Lets every worker finish its current batch, then ends them. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.workers].map(
        (worker) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
            worker.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            worker.postMessage({ type: 'stop' } satisfies ToPipelineWorker);
          }),
      ),
    );
  }

  private spawn(): Promise<void> {
    const data: PipelineWorkerData = {
      module: MODULE,
      dataDir: this.options.dataDir,
      embedder: this.options.embedder,
      batchJobs: this.options.batchJobs,
      overlapTokens: this.options.overlapTokens,
      ...(this.options.extraction ? { extraction: this.options.extraction } : {}),
    };
    // A young generation of 16 MB instead of V8's default keeps two workers' peak within the
    // server's 600 MB budget (docs/benchmarks.md, pipeline throughput).
    const worker = new Worker(ENTRY, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 16 } });
    this.workers.add(worker);
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: FromPipelineWorker) => {
        if (message.type === 'ready') {
          ready = true;
          this.ready.set(worker, new Map());
          // A pool that gave up starting is closing the database: the model is not activated.
          if (!this.stopping) this.options.onReady?.(message.embedderId, message.dimension);
          resolve();
        } else if (message.type === 'batch') {
          this.options.onBatch?.(message.report, message.jobs, message.ms);
        } else if (message.type === 'disk-full') {
          this.options.onDiskFull?.();
        } else if (message.type === 'disk-ok') {
          this.options.onDiskOk?.();
        } else if (message.type === 'query-embedded') {
          const waiting = this.ready.get(worker);
          const waiter = waiting?.get(message.id);
          waiting?.delete(message.id);
          if (message.error !== undefined) waiter?.reject(new Error(message.error));
          else waiter?.resolve(message.vectors!);
        } else {
          this.options.log?.(`pipeline worker failed: ${message.message}`);
        }
      });
      worker.on('error', (error) => this.options.log?.(`pipeline worker error: ${error.message}`));
      worker.on('exit', (code) => {
        this.workers.delete(worker);
        for (const waiter of this.ready.get(worker)?.values() ?? []) waiter.reject(new Error('the pipeline worker embedding the query stopped'));
        this.ready.delete(worker);
        if (!ready) reject(new Error(`a pipeline worker could not start (exit code ${code})`));
        else if (!this.stopping) {
          this.options.log?.(`pipeline worker exited with code ${code}; starting a new one`);
          setTimeout(() => {
            if (!this.stopping) this.spawn().catch((error: Error) => this.options.log?.(error.message));
          }, this.options.restartDelayMs ?? 1_000);
        }
      });
    });
  }
}
