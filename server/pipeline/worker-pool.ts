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
  /**
   * A worker died holding these jobs (claimed, not all settled): called at once, on the main
   * thread, to give back those still processing (start-pipeline.ts: JobRuns.recoverStale), which
   * no other worker would ever claim again. `cause`: the first line of the error it died of, when
   * it said (the reason a job proven to kill it fails with).
   */
  onWorkerLost?: (jobIds: number[], cause?: string) => void;
};

const { entry: ENTRY, module: MODULE } = workerModule('pipeline-worker');
const STOP_TIMEOUT_MS = 60_000;
const START_ATTEMPTS = 3;

/** A query handed to every ready worker: the first answer settles it; it fails once all have failed. */
type PendingQuery = { resolve: (vectors: Float32Array[]) => void; reject: (error: Error) => void; unanswered: Set<Worker> };

/**
 * Runs the pipeline in worker threads so the HTTP event loop stays free. Each worker claims its
 * own jobs from the database; the pool only starts, wakes, replaces and stops them, and hands
 * search's queries to them (`embedQuery`), so the server holds no other copy of the model.
 *
 * A worker that dies (an error it did not expect) is replaced after `restartDelayMs`. Its batch
 * is neither sent again nor failed by the pool: the jobs it held (its last `holding` message) go
 * to `onWorkerLost`, which puts them back in the queue as after a crash, as suspects run one at a
 * time (storage/jobs/recover-stale.ts). Every other worker is woken for them.
 *
 * Workers are also woken whenever one finishes a batch: a claim may have passed over due jobs
 * that must wait for the batches in hand (a crash suspect runs alone; large jobs leave one
 * worker free, storage/jobs/claim.ts), and a worker that found nothing to claim sleeps.
 */
export class WorkerPool {
  private readonly workers = new Set<Worker>();
  /** Workers whose model is loaded. */
  private readonly ready = new Set<Worker>();
  private readonly queries = new Map<number, PendingQuery>();
  /** The jobs each worker holds, as it last said. */
  private readonly holding = new Map<Worker, number[]>();
  /** What each worker said it died of (its 'fatal' message arrives before its exit). */
  private readonly lastWords = new Map<Worker, string>();
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
   * Embeds search's texts with the workers' model. Each worker takes them between two of its own
   * model calls, so the query waits for the call in hand; every ready worker is handed them and
   * the first answer is used, so it waits for the call that ends first (an idle worker answers at
   * once). The others embed them too: a query costs each worker ~10–15 ms beside calls of
   * 0.1–0.5 s. Null when no worker is ready (starting, replaced after a crash, or stopping): the
   * caller embeds them elsewhere.
   */
  embedQuery(texts: string[]): Promise<Float32Array[]> | null {
    if (this.stopping || this.ready.size === 0) return null;
    const id = this.nextQueryId++;
    return new Promise((resolve, reject) => {
      this.queries.set(id, { resolve, reject, unanswered: new Set(this.ready) });
      for (const worker of this.ready) worker.postMessage({ type: 'embed-query', id, texts } satisfies ToPipelineWorker);
    });
  }

  private queryAnswered(worker: Worker, id: number, answer: { vectors?: Float32Array[]; error?: string }): void {
    const query = this.queries.get(id);
    if (!query) return; // another worker answered first
    query.unanswered.delete(worker);
    if (answer.error === undefined && answer.vectors) {
      this.queries.delete(id);
      query.resolve(answer.vectors);
    } else if (query.unanswered.size === 0) {
      this.queries.delete(id);
      query.reject(new Error(answer.error ?? 'no vectors'));
    }
  }

  /** The jobs of a worker that died go back to the queue, and the living workers are told. */
  private giveBack(jobIds: number[], cause?: string): void {
    try {
      this.options.onWorkerLost?.(jobIds, cause);
    } catch (error) {
      // The server may be closing its database: start-up recovery takes them next time.
      this.options.log?.(`the jobs of a pipeline worker that stopped could not be given back: ${(error as Error).message}`);
    }
    this.wake();
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
      workers: this.options.workers,
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
          this.ready.add(worker);
          // A pool that gave up starting is closing the database: the model is not activated.
          if (!this.stopping) this.options.onReady?.(message.embedderId, message.dimension);
          resolve();
        } else if (message.type === 'holding') {
          this.holding.set(worker, message.jobIds);
        } else if (message.type === 'batch') {
          this.options.onBatch?.(message.report, message.jobs, message.ms);
          this.wake();
        } else if (message.type === 'disk-full') {
          this.options.onDiskFull?.();
        } else if (message.type === 'disk-ok') {
          this.options.onDiskOk?.();
        } else if (message.type === 'query-embedded') {
          this.queryAnswered(worker, message.id, message);
        } else {
          this.lastWords.set(worker, message.message.split('\n')[0]!);
          this.options.log?.(`pipeline worker failed: ${message.message}`);
        }
      });
      worker.on('error', (error) => this.options.log?.(`pipeline worker error: ${error.message}`));
      worker.on('exit', (code) => {
        this.workers.delete(worker);
        this.ready.delete(worker);
        // Messages a worker sent reach the pool before its exit does: `holding` is up to date.
        const held = this.holding.get(worker) ?? [];
        const cause = this.lastWords.get(worker);
        this.holding.delete(worker);
        this.lastWords.delete(worker);
        if (held.length > 0) this.giveBack(held, cause);
        for (const [id, query] of this.queries) {
          if (query.unanswered.has(worker)) this.queryAnswered(worker, id, { error: 'the pipeline worker embedding the query stopped' });
        }
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
