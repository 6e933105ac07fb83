import { Worker } from 'node:worker_threads';
import { workerModule } from '../worker-module.ts';
import type { EmbedderConfig } from './index.ts';
import type { QueryResponse } from './query-embedder-worker.ts';

const { entry: ENTRY, module: MODULE } = workerModule('query-embedder-worker');

/** Embeds queries in a worker thread of its own; started on first use, restarted if it dies. */
export class QueryEmbedder {
  private worker: Promise<Worker> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();

  constructor(private readonly config: EmbedderConfig) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
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
      const worker = new Worker(ENTRY, { workerData: { module: MODULE, embedder: this.config } });
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
