import { parentPort, workerData } from 'node:worker_threads';
import { commitSettled } from '../domain/commit-batcher.ts';
import type { PushInput } from '../domain/job-queue.ts';
import { openDatabase } from './db.ts';
import type { FromIngestWriter, IngestWriterData, ToIngestWriter, WrittenOutcome } from './ingest-writer-messages.ts';
import { prepareEnqueue } from './jobs/index.ts';

/**
 * The thread that writes pushed jobs (see ingest-writer.ts). Its connection keeps
 * synchronous=FULL: a commit returns once it is on disk, and only then is it reported. Blocking
 * here costs the event loop nothing, and everything that arrives during a commit goes into the next.
 */
const port = parentPort!;
const { dataDir } = workerData as IngestWriterData;
const db = openDatabase(dataDir);
const enqueue = prepareEnqueue(db);
let pending: Array<Extract<ToIngestWriter, { type: 'write' }>> = [];
let scheduled = false;

function post(message: FromIngestWriter): void {
  port.postMessage(message);
}

function flush(): void {
  scheduled = false;
  const batch = pending;
  pending = [];
  // One transaction for every message that arrived together; the latest options (clock, model)
  // apply to all of them.
  const pushes: PushInput[] = [];
  const counts: number[] = [];
  for (const message of batch) {
    const parsed = JSON.parse(message.pushes) as PushInput[];
    counts.push(parsed.length);
    for (const push of parsed) pushes.push(push);
  }
  const options = batch[batch.length - 1]!.options;
  const settled = commitSettled((inputs: PushInput[]) => enqueue(inputs, options), pushes);
  let at = 0;
  batch.forEach((message, i) => {
    const outcomes: WrittenOutcome[] = settled.slice(at, at + counts[i]!).map((result) =>
      result.ok
        ? { ok: true, out: result.out }
        : { ok: false, error: { message: (result.error as Error).message, code: (result.error as { code?: string }).code } },
    );
    at += counts[i]!;
    post({ type: 'written', id: message.id, outcomes });
  });
}

port.on('message', (message: ToIngestWriter) => {
  if (message.type === 'close') {
    if (scheduled) flush();
    db.close();
    port.close();
    return;
  }
  pending.push(message);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
});
post({ type: 'ready' });
