import type { IngestItem } from '../../common/contract/ingest.ts';
import { openDatabase } from '../../server/storage/db.ts';
import { JobHistory } from '../../server/storage/job-history.ts';
import { JobRepo } from '../../server/storage/jobs/job-repo.ts';
import { JobRuns } from '../../server/storage/jobs/job-runs.ts';
import { item, tempDataDir } from './temp-data.ts';

export const DAY = 24 * 60 * 60_000;
export const T0 = Date.UTC(2026, 0, 1);

/**
 * A data folder whose jobs finished on known days: what each item went through is in its name.
 * Returns the jobs as [externalId, status] in id order.
 */
export function history(dataDir = tempDataDir()) {
  const db = openDatabase(dataDir);
  const repo = new JobRepo(db);
  const runs = new JobRuns(db);
  const push = (externalId: string, now: number, content = 'v1') =>
    repo.enqueue([{ items: [{ ...(item() as IngestItem), externalId, data: { title: 'Opening hours', content } }], apiKeyId: null }], {
      now,
      maxAttempts: 1,
      activeModelId: null,
    });
  const runAll = (now: number, outcome: (externalId: string) => 'succeeded' | 'failed') => {
    for (const job of runs.claim(100, now)) {
      if (outcome(job.externalId) === 'succeeded') runs.finish(job.id, 'succeeded', now);
      else runs.recordFailure(job, 'boom', now);
    }
  };
  // Day 0: every item pushed and processed; "failed-then-queued" fails for good.
  for (const id of ['changed', 'resynced', 'only-once', 'failed-then-queued', 'twice-old']) push(id, T0);
  runAll(T0 + 1, (id) => (id === 'failed-then-queued' ? 'failed' : 'succeeded'));
  // Day 1: "twice-old" changes and is processed again, still long ago.
  push('twice-old', T0 + DAY, 'v2');
  runAll(T0 + DAY + 1, () => 'succeeded');
  // Day 40: "changed" changes, "resynced" is pushed again unchanged, both are processed;
  // "failed-then-queued" is pushed again and waits in the queue.
  push('changed', T0 + 40 * DAY, 'v2');
  push('resynced', T0 + 40 * DAY);
  runAll(T0 + 40 * DAY + 1, () => 'succeeded');
  push('failed-then-queued', T0 + 40 * DAY, 'v2');
  const jobs = () =>
    db.prepare('SELECT external_id, status FROM jobs ORDER BY id').all().map((row) => {
      const { external_id, status } = row as { external_id: string; status: string };
      return `${external_id} ${status}`;
    });
  return { db, push, jobs, history: new JobHistory(db) };
}
