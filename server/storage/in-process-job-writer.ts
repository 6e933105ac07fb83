import { commitSettled, type Settled } from '../domain/commit-batcher.ts';
import type { EnqueueOptions, EnqueueResult, JobWriter, PushInput } from '../domain/job-queue.ts';
import type { Db } from './db.ts';
import { prepareEnqueue } from './jobs/index.ts';

/**
 * Writes pushed jobs on the given connection, in the caller's thread: the same transaction as the
 * ingest writer thread's (jobs/enqueue.ts), committed before the write resolves, but without the
 * thread, so the event loop waits for each commit. For a process that pushes little and must start
 * no thread: the route tests of the unit group (test/README.md). The server uses `IngestWriter`.
 */
export class InProcessJobWriter implements JobWriter {
  private readonly enqueue: ReturnType<typeof prepareEnqueue>;

  constructor(db: Db) {
    this.enqueue = prepareEnqueue(db);
  }

  async write(pushes: PushInput[], options: EnqueueOptions): Promise<Array<Settled<EnqueueResult>>> {
    return commitSettled((inputs: PushInput[]) => this.enqueue(inputs, options), pushes);
  }
}
