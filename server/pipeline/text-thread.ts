import { Worker } from 'node:worker_threads';
import type { EmbedderConfig } from '../embedders/index.ts';
import { workerModule } from '../worker-module.ts';
import type { FromTextWorker, TextWorkerData, ToTextWorker } from './worker-messages.ts';

export type TextThreadOptions = {
  dataDir: string;
  embedder: EmbedderConfig;
  dimension: number;
  overlapTokens: number;
  /**
   * The thread died (an error it did not expect): called at once, before it is replaced, to give
   * back the text phases it held (start-pipeline.ts: TextPhase.release).
   */
  onLost: () => void;
  log?: (message: string) => void;
  restartDelayMs?: number;
};

const { entry: ENTRY, module: MODULE } = workerModule('text-worker');
const STOP_TIMEOUT_MS = 30_000;

/**
 * The text phase's own thread (text-worker.ts): started once the model's vector size is known,
 * woken by pushes, replaced when it dies. Its turns never wait for a model call, so pushed texts
 * become searchable by keyword as fast as they come (docs/pipeline.md, "Two phases").
 */
export class TextThread {
  private worker: Worker | null = null;
  private stopping = false;

  constructor(private readonly options: TextThreadOptions) {}

  /** Resolves once the thread has its tokenizer and database and is writing texts. */
  start(): Promise<void> {
    const data: TextWorkerData = {
      module: MODULE,
      dataDir: this.options.dataDir,
      embedder: this.options.embedder,
      dimension: this.options.dimension,
      overlapTokens: this.options.overlapTokens,
    };
    // Its JavaScript is one claim's texts at a time: a young generation of 4 MB, as the ingest
    // writer's (the thread costs the server about 40 MB, docs/benchmarks.md "Searchable at once").
    const worker = new Worker(ENTRY, { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    this.worker = worker;
    return new Promise((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: FromTextWorker) => {
        if (message.type === 'ready') {
          ready = true;
          resolve();
        } else this.options.log?.(`text phase thread failed: ${message.message}`);
      });
      worker.on('error', (error) => this.options.log?.(`text phase thread error: ${error.message}`));
      worker.on('exit', (code) => {
        if (this.worker === worker) this.worker = null;
        if (this.stopping) return;
        try {
          this.options.onLost();
        } catch (error) {
          // The server may be closing its database: start-up gives them back next time.
          this.options.log?.(`the text phases of the thread that stopped could not be given back: ${(error as Error).message}`);
        }
        if (!ready) return reject(new Error(`the text phase thread could not start (exit code ${code})`));
        this.options.log?.(`text phase thread exited with code ${code}; starting a new one`);
        setTimeout(() => {
          if (!this.stopping) this.start().catch((error: Error) => this.options.log?.(error.message));
        }, this.options.restartDelayMs ?? 1_000);
      });
    });
  }

  /** New texts wait: a sleeping thread takes them at once. */
  wake(): void {
    this.worker?.postMessage({ type: 'wake' } satisfies ToTextWorker);
  }

  /** Lets the thread finish its claim in hand, then ends it. */
  async stop(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ type: 'stop' } satisfies ToTextWorker);
    });
  }
}
