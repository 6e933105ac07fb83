import type { EmbedderConfig } from '../embedders/index.ts';
import type { ExtractionLimits } from './extract/extractor.ts';
import type { BatchReport } from './process-batch.ts';

export type PipelineWorkerData = {
  module: string;
  dataDir: string;
  embedder: EmbedderConfig;
  /** Most jobs claimed at once: their chunks are embedded together. */
  batchJobs: number;
  /** How many pipeline workers run: large jobs are claimed by at most one fewer (storage/jobs/claim.ts). */
  workers: number;
  overlapTokens: number;
  /** What one file's extraction may cost (extract/extractor.ts); defaults when absent. */
  extraction?: ExtractionLimits;
};

export type ToPipelineWorker =
  | { type: 'wake' }
  | { type: 'stop' }
  /** Search's texts to embed with the worker's model, between its own model calls. */
  | { type: 'embed-query'; id: number; texts: string[] };

export type FromPipelineWorker =
  | { type: 'ready'; embedderId: string; dimension: number }
  | { type: 'batch'; report: BatchReport; jobs: number; ms: number }
  /**
   * The jobs this worker holds now (claimed, not yet given back): sent when it claims a batch and
   * when it lets go of one. Were the worker to die, the pool has them recovered (worker-pool.ts).
   */
  | { type: 'holding'; jobIds: number[] }
  | { type: 'fatal'; message: string }
  /** The disk is full: the worker waits `retryInMs` and tries again, instead of failing jobs. */
  | { type: 'disk-full'; retryInMs: number }
  | { type: 'disk-ok' }
  | { type: 'query-embedded'; id: number; vectors?: Float32Array[]; error?: string };

export type TextWorkerData = {
  module: string;
  dataDir: string;
  /** Whose tokenizer cuts the chunks (the same model the pipeline workers load). */
  embedder: EmbedderConfig;
  /** The model's vector size: a new version keeps the vectors of passages it shares with the one before. */
  dimension: number;
  overlapTokens: number;
};

export type ToTextWorker = { type: 'wake' } | { type: 'stop' };

export type FromTextWorker = { type: 'ready' } | { type: 'fatal'; message: string };
