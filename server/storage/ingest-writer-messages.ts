import type { EnqueueOptions, EnqueueResult } from '../domain/job-queue.ts';

/** Main thread → ingest writer thread. `pushes` is a JSON array of PushInput (cheaper to post). */
export type ToIngestWriter =
  | { type: 'write'; id: number; pushes: string; options: EnqueueOptions }
  | { type: 'close' };

export type WrittenOutcome = { ok: true; out: EnqueueResult } | { ok: false; error: { message: string; code?: string } };

/** Ingest writer thread → main thread. */
export type FromIngestWriter =
  | { type: 'ready' }
  | { type: 'written'; id: number; outcomes: WrittenOutcome[] };

/** `module` is the thread's code, loaded by the shared worker entry (server/worker-entry.js). */
export type IngestWriterData = { module: string; dataDir: string };
