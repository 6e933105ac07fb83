/**
 * A pipeline worker thread: owns one model instance and one database connection, claims jobs in
 * claim order, processes them in batches and reports each batch to the main thread.
 */
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { FILE_LIMITS } from '../../common/contract/files.ts';
import { isDiskFull, nextDiskFullWait } from '../domain/disk-condition.ts';
import { openDatabase } from '../storage/db.ts';
import { IndexRepo } from '../storage/index-repo.ts';
import { JobRuns } from '../storage/jobs/job-runs.ts';
import type { ClaimedJob } from '../domain/job-record.ts';
import { VectorStore } from '../storage/vector-store.ts';
import { createEmbedder } from '../embedders/index.ts';
import type { Embedder } from '../embedders/embedder.ts';
import { Originals } from '../storage/originals.ts';
import { FileExtractor } from './extract/extractor.ts';
import { processBatch } from './process-batch.ts';
import type { FromPipelineWorker, PipelineWorkerData, ToPipelineWorker } from './worker-messages.ts';
import { prepareItemCommit } from '../storage/index-commits.ts';
import { wakeableSleep } from './wakeable-sleep.ts';

const config = workerData as PipelineWorkerData;
const port = parentPort!;
const send = (message: FromPipelineWorker) => port.postMessage(message);

/** What a file's extraction may cost when the server does not say (config.ts has the same defaults). */
const DEFAULT_EXTRACTION = { timeoutMs: 120_000, memoryMb: 512, ocr: true, maxTextChars: FILE_LIMITS.textCharacters };

/** Longest sleep when idle: jobs in backoff become due without anyone waking the worker. */
const MAX_IDLE_MS = 1_000;
/**
 * This thread's scheduling priority (Linux: nice, which is per thread; os.setPriority(0) applies to
 * the calling thread only): embedding is background work, so the HTTP event loop, the text
 * phase's thread and the search they serve get the cores first when they want them
 * (docs/pipeline.md, "Queries while indexing"). 10 gives a thread a tenth of the weight of one at
 * the default 0. Where the system refuses (it never does for a lower priority on Linux, macOS or
 * Windows), the worker runs at the default.
 */
const PRIORITY = 10;

let stopping = false;
const { sleep, wake } = wakeableSleep();
/** The model, once loaded: the pool sends search's queries only to a worker that said it is ready. */
let model: Embedder | null = null;
/**
 * Queries do not wait behind indexing (docs/pipeline.md, "Queries while indexing"): for
 * QUERY_WINDOW_MS after a search's query, this worker's model calls take QUERY_CALL_TEXTS passage
 * at a time, so the next query waits for one short call (about 70 ms at 128 word-pieces on a quiet
 * core) rather than one of 8 (about 0.55 s).
 */
const QUERY_WINDOW_MS = 10_000;
const QUERY_CALL_TEXTS = 1;
let lastQueryAt = -Infinity;
const callLimit = (): number | null => (performance.now() - lastQueryAt < QUERY_WINDOW_MS ? QUERY_CALL_TEXTS : null);
port.on('message', (message: ToPipelineWorker) => {
  if (message.type === 'embed-query') return embedQuery(message.id, message.texts);
  if (message.type === 'stop') stopping = true;
  wake();
});

/**
 * Search's query embedded with this worker's model: taken in between two of the worker's own model
 * calls (embedInBatches turns the event loop before each), so it waits for one call at most.
 */
function embedQuery(id: number, texts: string[]): void {
  if (!model) return send({ type: 'query-embedded', id, error: 'the pipeline worker has no model loaded' });
  lastQueryAt = performance.now();
  model.embed(texts).then(
    (vectors) => send({ type: 'query-embedded', id, vectors }),
    (error: unknown) => send({ type: 'query-embedded', id, error: error instanceof Error ? error.message : String(error) }),
  );
}

async function run(): Promise<void> {
  try {
    os.setPriority(0, PRIORITY);
  } catch {
    // Not allowed here: the default priority.
  }
  const db = openDatabase(config.dataDir);
  const embedder = await createEmbedder(config.embedder);
  model = embedder;
  embedder.limitCalls?.(callLimit);
  const runs = new JobRuns(db);
  const index = new IndexRepo(db, new VectorStore(db, embedder.id, embedder.dimension));
  send({ type: 'ready', embedderId: embedder.id, dimension: embedder.dimension });
  const extractor = new FileExtractor(config.extraction ?? DEFAULT_EXTRACTION);
  const files = { originals: new Originals(config.dataDir), extractor };
  const deps = { db, runs, index, commitItem: prepareItemCommit(db, index, runs), embedder, overlapTokens: config.overlapTokens, clock: Date.now, files };
  // Jobs this worker claimed when the disk filled up: given back to the queue once it has room
  // (recordFailure leaves alone any of them that was settled meanwhile).
  let held: ClaimedJob[] = [];
  let diskWait = 0;
  while (!stopping) {
    try {
      if (held.length > 0) {
        for (const job of held) runs.recordFailure(job, 'the disk was full; tried again once it had room', Date.now());
        held = [];
        send({ type: 'holding', jobIds: [] });
      }
      if (diskWait > 0) {
        diskWait = 0;
        send({ type: 'disk-ok' });
      }
      const jobs = runs.claim(config.batchJobs, Date.now(), config.workers);
      if (jobs.length === 0) {
        // Due jobs left unclaimed wait for a batch in hand to end (a crash suspect runs alone; large
        // jobs leave a worker free: claim.ts), and the pool wakes this worker when one does.
        const next = runs.nextRunAt();
        const now = Date.now();
        await sleep(next === null || next <= now ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, Math.max(10, next - now)));
        continue;
      }
      held = jobs;
      send({ type: 'holding', jobIds: jobs.map((job) => job.id) });
      const started = performance.now();
      const report = await processBatch(jobs, deps);
      held = [];
      send({ type: 'holding', jobIds: [] });
      send({ type: 'batch', report, jobs: jobs.length, ms: performance.now() - started });
      // A batch settles in promise callbacks only, so with work left this loop never let the port
      // deliver a 'stop': one turn of the event loop between batches lets it in.
      await new Promise((resolve) => setImmediate(resolve));
    } catch (error) {
      // A full disk ends no job and no worker: wait, with backoff, until there is room again
      // (a 'stop' ends the wait at once).
      if (!isDiskFull(error)) throw error;
      diskWait = nextDiskFullWait(diskWait);
      send({ type: 'disk-full', retryInMs: diskWait });
      await sleep(diskWait);
    }
  }
  await extractor.close();
  model = null;
  await embedder.close();
  db.close();
}

run().then(
  () => process.exit(0),
  (error: unknown) => {
    send({ type: 'fatal', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  },
);
