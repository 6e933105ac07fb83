/**
 * The queue's own reads with a large backlog: a worker's claim of 8 due jobs (in its write
 * transaction, so every commit waits for it) and the count of queued jobs ahead that a bulk push's
 * `estimatedTime` needs (on the event loop), each as LocalIQ runs it and as SQLite's planner runs
 * the same statement without the index hint. Then, with every other job finished, the reads of
 * the dashboard's live monitor (a snapshot while jobs change, the change check every 1.5 s while a
 * dashboard is open), all on the event loop.
 * Usage: node --import tsx bench/queue-scale.ts [--queued 300000 --repeat 5]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { openDatabase } from '../server/storage/db.ts';
import { JobRepo } from '../server/storage/job-repo.ts';
import { JobRuns } from '../server/storage/job-runs.ts';
import { MonitorRepo } from '../server/storage/monitor-repo.ts';
import { percentile, tempDir } from './lib/server-child.ts';

const { values } = parseArgs({
  options: { queued: { type: 'string', default: '300000' }, repeat: { type: 'string', default: '5' } },
});
const queued = Number(values.queued);
const repeat = Number(values.repeat);

const dataDir = tempDir();
const db = openDatabase(dataDir);
const repo = new JobRepo(db);
let n = 0;
const started = performance.now();
for (let pushed = 0; pushed < queued; pushed += 1000) {
  const items = Array.from({ length: Math.min(1000, queued - pushed) }, () => ({
    integrationId: 'bench',
    knowledgeBaseId: 'kb-bench',
    sourceType: 'ARTICLE' as const,
    externalId: `item-${n++}`,
    data: { title: `Item ${n}`, content: `Benchmark item number ${n}. `.repeat(20) },
  }));
  repo.enqueue([{ items, apiKeyId: 'bench-key' }], { now: Date.now(), maxAttempts: 3, activeModelId: null });
}
const fillSeconds = (performance.now() - started) / 1000;

/** Median milliseconds of `repeat` runs. */
function time(run: () => unknown): number {
  const ms: number[] = [];
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    run();
    ms.push(performance.now() - t);
  }
  return Number(percentile(ms, 50).toFixed(2));
}

const runs = new JobRuns(db);
const unhintedClaim = db.prepare(
  `UPDATE jobs SET status = 'processing', locked_at = @now, started_at = @now, updated_at = @now, attempts = attempts + 1
   WHERE id IN (SELECT id FROM jobs WHERE status = 'queued' AND run_at <= @now ORDER BY sort_key LIMIT @limit)
   RETURNING *`,
);
const unhintedCount = db.prepare("SELECT count(*) AS n FROM jobs WHERE status = 'queued' AND sort_key <= ?");
const horizon = Date.now() + 3_600_000;

const queue = {
  claim8: time(() => runs.claim(8, Date.now())),
  claim8Unhinted: time(() => db.transaction(() => unhintedClaim.all({ now: Date.now(), limit: 8 })).immediate()),
  countQueuedAhead: time(() => repo.countQueuedUpTo(horizon)),
  countQueuedAheadUnhinted: time(() => unhintedCount.get(horizon)),
};
db.exec("UPDATE jobs SET status = 'succeeded', finished_at = updated_at WHERE id % 2 = 0");
const monitor = new MonitorRepo(db);
const monitorReads = {
  countByStatus: time(() => repo.countByStatus()),
  queuedByPriority: time(() => monitor.queuedByPriority()),
  progress: time(() => monitor.progress()),
  changeCheck: time(() => monitor.fingerprint()),
};

console.log(
  JSON.stringify(
    { when: new Date().toISOString(), queued, fillSeconds: Number(fillSeconds.toFixed(1)), medianMs: { queue, monitorReads } },
    null,
    2,
  ),
);
db.close();
fs.rmSync(dataDir, { recursive: true, force: true });
