import { Worker } from 'node:worker_threads';
import { workerModule } from '../worker-module.ts';
import type { Settled } from '../domain/commit-batcher.ts';
import type { EnqueueOptions, EnqueueResult, JobWriter, PushInput } from '../domain/job-queue.ts';
import type { FromIngestWriter, IngestWriterData, ToIngestWriter } from './ingest-writer-messages.ts';

const { entry: ENTRY, module: MODULE } = workerModule('ingest-writer-thread');

type InFlight = { resolve: (outcomes: Array<Settled<EnqueueResult>>) => void; reject: (error: Error) => void };

/**
 * Writes pushed jobs on a thread of its own (ingest-writer-thread.ts) with its own connection.
 * Committing a push costs about as much CPU as everything else about it together (the row and
 * its indexes, the content hash, the disk sync, the log checkpoints), so the event loop only
 * hands pushes over and keeps parsing, authenticating and validating requests meanwhile. The
 * thread answers once the commit is on disk (synchronous=FULL): an acknowledged job survives
 * power loss.
 */
export class IngestWriter implements JobWriter {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private readonly inFlight = new Map<number, InFlight>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly dataDir: string) {}

  /** Starts the thread (at the latest, the first write does); resolves once it can write. */
  start(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The ingest writer is closed.'));
    if (this.ready) return this.ready;
    const worker = new Worker(ENTRY, {
      workerData: { module: MODULE, dataDir: this.dataDir } satisfies IngestWriterData,
      // Its objects live for one commit: a small young generation keeps the thread's memory low
      // (the server's peak stays within its 600 MB budget with two pipeline workers).
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    worker.unref();
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromIngestWriter) => {
        if (message.type === 'ready') resolve();
        else this.settle(message.id, message.outcomes);
      });
      worker.on('error', (error) => {
        reject(error);
        this.fail(worker, error);
      });
      worker.on('exit', (code) => {
        const error = new Error(`The ingest writer thread stopped (exit code ${code}).`);
        reject(error);
        this.fail(worker, error);
      });
    });
    return this.ready;
  }

  /** Resolves, once the pushes are committed and on disk, with one outcome per push. */
  async write(pushes: PushInput[], options: EnqueueOptions): Promise<Array<Settled<EnqueueResult>>> {
    if (this.closed) throw new Error('The ingest writer is closed.');
    if (!this.worker) await this.start();
    const worker = this.worker!;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // Only pending writes keep the process alive; an idle writer never holds it open.
      if (this.inFlight.size === 0) worker.ref();
      this.inFlight.set(id, { resolve, reject });
      worker.postMessage({ type: 'write', id, pushes: JSON.stringify(pushes), options } satisfies ToIngestWriter);
    });
  }

  private settle(id: number, outcomes: Extract<FromIngestWriter, { type: 'written' }>['outcomes']): void {
    const entry = this.inFlight.get(id);
    if (!entry) return;
    this.inFlight.delete(id);
    if (this.inFlight.size === 0) this.worker?.unref();
    entry.resolve(
      outcomes.map((outcome) =>
        outcome.ok ? outcome : { ok: false, error: Object.assign(new Error(outcome.error.message), { code: outcome.error.code }) },
      ),
    );
  }

  /** A thread that failed is dropped with everything it had; the next write starts a new one. */
  private fail(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.ready = null;
    const entries = [...this.inFlight.values()];
    this.inFlight.clear();
    for (const entry of entries) entry.reject(error);
    void worker.terminate();
  }

  /** Lets the thread finish what it was given, then close its connection and end. */
  close(): void {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    worker.postMessage({ type: 'close' } satisfies ToIngestWriter);
    worker.unref();
  }
}
