/**
 * The queue's own reads with a large backlog: a worker's claim of 8 due jobs (in its write
 * transaction, so every commit waits for it) and the count of queued jobs ahead that a bulk push's
 * `estimatedTime` needs (on the event loop), each as LocalIQ runs it and as SQLite's planner runs
 * the same statement without the index hint. Then, with every other job finished (one in a
 * thousand of them failed) and a batch processing, the reads of the dashboard's live monitor (a
 * whole snapshot while jobs change and its parts, the change check every 1.5 s while a dashboard
 * is open, the knowledge-base list with its pending jobs) and a first page of `GET /jobs` by
 * state, all on the event loop.
 * Usage: node --import tsx bench/queue-scale.ts [--queued 300000 --repeat 5]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { openDatabase } from '../server/storage/db.ts';
import { JobRepo } from '../server/storage/jobs/job-repo.ts';
import { JobRuns } from '../server/storage/jobs/job-runs.ts';
import { MonitorRepo } from '../server/storage/monitor-repo.ts';
import { ItemReadRepo } from '../server/storage/item-read-repo.ts';
import { JobQueue } from '../server/domain/job-queue.ts';
import { MonitorService } from '../server/domain/monitor.ts';
import { ThroughputMeter } from '../server/domain/throughput.ts';
import { medianMs, tempDir } from './lib/server-child.ts';

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

const time = (run: () => unknown) => medianMs(repeat, run);

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
// Half the jobs finished (one in a thousand of them failed), a batch processing now.
db.exec(`UPDATE jobs SET status = CASE WHEN id % 2000 = 0 THEN 'failed' ELSE 'succeeded' END,
  finished_at = updated_at WHERE id % 2 = 0`);
runs.claim(8, Date.now());
const monitor = new MonitorRepo(db);
const throughput = new ThroughputMeter();
const jobQueue = new JobQueue(repo, { write: () => Promise.reject(new Error('no pushes here')) }, throughput, 3);
const service = new MonitorService(monitor, jobQueue, throughput);
const reader = new ItemReadRepo(db);
const monitorReads = {
  snapshot: time(() => service.snapshot()),
  changeCheck: time(() => monitor.fingerprint()),
  countByStatus: time(() => repo.countByStatus()),
  queuedByPriority: time(() => monitor.queuedByPriority()),
  progress: time(() => monitor.progress()),
  knowledgeBases: time(() => reader.knowledgeBases()),
};
const jobLists = {
  queued: time(() => repo.list({ status: 'queued' }, 51, null)),
  succeeded: time(() => repo.list({ status: 'succeeded' }, 51, null)),
  failed: time(() => repo.list({ status: 'failed' }, 51, null)),
  all: time(() => repo.list({}, 51, null)),
};

console.log(
  JSON.stringify(
    { when: new Date().toISOString(), queued, fillSeconds: Number(fillSeconds.toFixed(1)), medianMs: { queue, monitorReads, jobLists } },
    null,
    2,
  ),
);
db.close();
fs.rmSync(dataDir, { recursive: true, force: true });
