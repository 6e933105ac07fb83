import { Worker } from 'node:worker_threads';
import { workerModule } from '../worker-module.ts';
import type { EmbedderConfig } from './index.ts';
import type { QueryResponse } from './query-embedder-worker.ts';

const { entry: ENTRY, module: MODULE } = workerModule('query-embedder-worker');

/**
 * Other threads holding the same model (the pipeline's workers) that embed queries between their
 * own model calls; `embedQuery` returns null when none of them can take one now.
 */
export type SharedModelThreads = { embedQuery(texts: string[]): Promise<Float32Array[]> | null };

/**
 * Embeds queries off the event loop: with the pipeline's workers while they run (`share`), so the
 * server holds no third copy of the model (~110 MB); otherwise (no workers, or none ready) in a
 * worker thread of its own, started on first use and restarted if it dies.
 */
export class QueryEmbedder {
  private worker: Promise<Worker> | null = null;
  private shared: SharedModelThreads | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();

  constructor(private readonly config: EmbedderConfig) {}

  /**
   * Queries go to `threads` (loaded with this embedder's model) from now on, or again to this
   * embedder's own thread with null. Sharing ends the own thread, which would only hold memory.
   */
  share(threads: SharedModelThreads | null): void {
    this.shared = threads;
    if (threads) void this.close();
  }

  /** Whether this embedder's own thread is started (it holds a copy of the model). */
  get ownThreadStarted(): boolean {
    return this.worker !== null;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const elsewhere = this.shared?.embedQuery(texts);
    if (elsewhere) return elsewhere;
    const worker = await this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await (await worker.catch(() => null))?.terminate();
  }

  private start(): Promise<Worker> {
    this.worker ??= new Promise((resolve, reject) => {
      // A young generation of 4 MB: the thread's JavaScript is a query's tokens and vector, and V8's
      // default kept ~12 MB more resident (bench/diagnostics/model-memory.ts).
      const worker = new Worker(ENTRY, { workerData: { module: MODULE, embedder: this.config }, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
      worker.on('message', (message: QueryResponse) => {
        if ('ready' in message) return resolve(worker);
        const waiter = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error !== undefined) waiter?.reject(new Error(message.error));
        else waiter?.resolve(message.vectors!);
      });
      worker.on('error', reject);
      worker.on('exit', () => {
        this.worker = null;
        for (const waiter of this.pending.values()) waiter.reject(new Error('the query embedder stopped'));
        this.pending.clear();
        reject(new Error('the query embedder could not start'));
      });
    });
    return this.worker;
  }
}
