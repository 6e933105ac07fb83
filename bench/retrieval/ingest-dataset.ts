/**
 * Pushes a dataset through POST /ingest/bulk and waits until its knowledge base has no pending
 * jobs, timing the whole path (acknowledgement, normalize, chunk, embed, index).
 */
import type { Dataset } from './datasets.ts';
import { type ApiTarget, ingestBulk, knowledgeBase } from './http-client.ts';

const BULK_SIZE = 1_000;
const POLL_MS = 1_000;
const PROGRESS_EVERY_MS = 30_000;

export type IngestStats = {
  items: number;
  /** Items that did not make it into the index (failed jobs). */
  missing: number;
  chunks: number;
  /** True when the data folder already held this dataset, fully indexed: nothing was timed. */
  reused: boolean;
  pushSeconds: number | null;
  totalSeconds: number | null;
  itemsPerSecond: number | null;
  chunksPerSecond: number | null;
};

export async function ingestDataset(target: ApiTarget, dataset: Dataset, log: (line: string) => void): Promise<IngestStats> {
  const existing = await knowledgeBase(target, dataset.knowledgeBaseId);
  if (existing && existing.itemCount === dataset.items.length && existing.pendingJobs === 0) {
    return stats(dataset, existing.itemCount, existing.chunkCount, null, null, true);
  }

  const started = performance.now();
  for (let i = 0; i < dataset.items.length; i += BULK_SIZE) {
    await ingestBulk(target, dataset.items.slice(i, i + BULK_SIZE));
  }
  const pushed = performance.now();
  log(`${dataset.name}: ${dataset.items.length} items acknowledged in ${seconds(pushed - started)} s; indexing…`);

  let lastProgress = pushed;
  for (;;) {
    const kb = (await knowledgeBase(target, dataset.knowledgeBaseId))!;
    if (kb.pendingJobs === 0) {
      const done = performance.now();
      log(`${dataset.name}: indexed ${kb.itemCount} items, ${kb.chunkCount} chunks in ${seconds(done - started)} s`);
      return stats(dataset, kb.itemCount, kb.chunkCount, pushed - started, done - started, false);
    }
    if (performance.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = performance.now();
      log(`${dataset.name}: ${kb.itemCount} indexed, ${kb.pendingJobs} pending, ${seconds(lastProgress - started)} s`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function stats(dataset: Dataset, itemCount: number, chunks: number, pushMs: number | null, totalMs: number | null, reused: boolean): IngestStats {
  const total = totalMs === null ? null : totalMs / 1000;
  return {
    items: dataset.items.length,
    missing: dataset.items.length - itemCount,
    chunks,
    reused,
    pushSeconds: pushMs === null ? null : seconds(pushMs),
    totalSeconds: total === null ? null : seconds(totalMs!),
    itemsPerSecond: total === null ? null : Math.round((itemCount / total) * 10) / 10,
    chunksPerSecond: total === null ? null : Math.round((chunks / total) * 10) / 10,
  };
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}
