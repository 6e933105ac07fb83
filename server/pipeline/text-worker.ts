/**
 * The text phase's thread (docs/pipeline.md, "Two phases"): pushed items' text written for keyword
 * search as soon as they are acknowledged, in turns of its own, never waiting for a model call.
 * Holds a database connection and the model's tokenizer only (embedders/token-counter.ts), not the
 * model: chunking needs the token counts, the vectors come from the pipeline workers.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isDiskFull, nextDiskFullWait } from '../domain/disk-condition.ts';
import { createTokenCounter } from '../embedders/token-counter.ts';
import { openDatabase } from '../storage/db.ts';
import { IndexRepo } from '../storage/index-repo.ts';
import { prepareTextPhase } from '../storage/jobs/text-phase.ts';
import { VectorStore } from '../storage/vector-store.ts';
import { runTextPass } from './text-pass.ts';
import type { FromTextWorker, TextWorkerData, ToTextWorker } from './worker-messages.ts';
import { prepareTextCommit } from '../storage/index-commits.ts';
import { wakeableSleep } from './wakeable-sleep.ts';

const config = workerData as TextWorkerData;
const port = parentPort!;
const send = (message: FromTextWorker) => port.postMessage(message);

/**
 * One turn of the pass: claims of 32 jobs until this much time has gone, then a turn of the event
 * loop (a 'stop' gets in). Long enough that claims rarely stop midway, short enough for a stop.
 */
const TURN_MS = 250;
/** Longest sleep with nothing waiting: a push wakes the thread at once (the pool's 'wake'). */
const MAX_IDLE_MS = 1_000;

let stopping = false;
const { sleep, wake } = wakeableSleep();
port.on('message', (message: ToTextWorker) => {
  if (message.type === 'stop') stopping = true;
  wake();
});

async function run(): Promise<void> {
  const db = openDatabase(config.dataDir);
  const tokenizer = await createTokenCounter(config.embedder);
  const index = new IndexRepo(db, new VectorStore(db, tokenizer.id, config.dimension));
  const phase = prepareTextPhase(db);
  const deps = { index, phase, commitTexts: prepareTextCommit(db, index, phase), embedder: tokenizer, overlapTokens: config.overlapTokens, clock: Date.now };
  send({ type: 'ready' });
  let diskWait = 0;
  while (!stopping) {
    let more: boolean;
    try {
      more = runTextPass(deps, TURN_MS);
      diskWait = 0;
    } catch (error) {
      // A full disk: the embedding pass reports it and waits; the text phase waits as well.
      if (!isDiskFull(error)) throw error;
      diskWait = nextDiskFullWait(diskWait);
      await sleep(diskWait);
      continue;
    }
    if (more) await new Promise((resolve) => setImmediate(resolve));
    else await sleep(MAX_IDLE_MS);
  }
  db.close();
}

run().then(
  () => process.exit(0),
  (error: unknown) => {
    send({ type: 'fatal', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  },
);
