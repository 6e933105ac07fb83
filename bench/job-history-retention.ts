/**
 * The job history's retention (LOCALIQ_JOB_HISTORY_DAYS): a catalogue pushed and processed once,
 * then re-synced unchanged every night (each re-push settles as `skipped` at once), on a clock
 * that moves a day per night.
 *  1. Steady state: a retention pass after every night, as the hourly pass does. Prints the jobs
 *     and the database's size after the last night, against the jobs pushed, and the passes' times.
 *  2. The first pass on a data folder that kept every job: how long it takes in all, and the
 *     longest page (one transaction: the event loop waits for it, the ingest writer may too).
 *  3. A pass over a catalogue pushed once and never again: nothing to remove, every item's only
 *     job read (what each hourly pass costs such a catalogue).
 * Usage: node --import tsx bench/job-history-retention.ts [--items 20000 --nights 60 --days 30]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { HISTORY_PAGE, type HistoryPosition } from '../server/domain/job-history-retention.ts';
import { openDatabase, type Db } from '../server/storage/db.ts';
import { JobHistory } from '../server/storage/job-history.ts';
import { JobRepo } from '../server/storage/jobs/job-repo.ts';
import { processQueued, pushCatalogue } from './lib/catalogue.ts';
import { percentile, tempDir } from './lib/server-child.ts';

const { values } = parseArgs({
  options: { items: { type: 'string', default: '20000' }, nights: { type: 'string', default: '60' }, days: { type: 'string', default: '30' } },
});
const itemCount = Number(values.items);
const nights = Number(values.nights);
const days = Number(values.days);
const DAY = 24 * 60 * 60_000;
const START = Date.UTC(2026, 0, 1);

/** A data folder with the catalogue pushed and processed on the first night (bench/lib/catalogue.ts). */
function catalogue(): { db: Db; dataDir: string; push: (now: number) => void } {
  const dataDir = tempDir();
  const db = openDatabase(dataDir);
  const repo = new JobRepo(db);
  const push = (now: number) => pushCatalogue(repo, itemCount, 1, now);
  push(START);
  processQueued(db, START);
  return { db, dataDir, push };
}

/** One retention pass at `now`, page by page as the server runs it; the time of each page. */
function pass(history: JobHistory, now: number): { removed: number; pageMs: number[] } {
  const pageMs: number[] = [];
  let removed = 0;
  let from: HistoryPosition | null = null;
  do {
    const started = performance.now();
    const page = history.prune(now - days * DAY, from, HISTORY_PAGE);
    pageMs.push(performance.now() - started);
    removed += page.removed;
    from = page.next;
  } while (from);
  return { removed, pageMs };
}

function size(db: Db) {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const jobs = (db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;
  return { jobs, fileMb: Math.round((pages * pageSize) / 2 ** 20), inUseMb: Math.round(((pages - free) * pageSize) / 2 ** 20) };
}

const round = (ms: number) => Math.round(ms * 10) / 10;

// 1. A pass after every night.
const steady = catalogue();
const steadyHistory = new JobHistory(steady.db);
// The passes that removed a night's jobs (before `days` nights there is nothing to remove).
const passMs: number[] = [];
let longestPageMs = 0;
// The database's size every quarter of the nights: it stops growing once the history is full.
const sizeByNight: Record<number, ReturnType<typeof size>> = {};
for (let night = 1; night <= nights; night++) {
  steady.push(START + night * DAY);
  const started = performance.now();
  const { removed, pageMs } = pass(steadyHistory, START + night * DAY);
  if (removed > 0) passMs.push(performance.now() - started);
  longestPageMs = Math.max(longestPageMs, ...pageMs);
  if (night % Math.ceil(nights / 4) === 0) sizeByNight[night] = size(steady.db);
}
const steadySize = size(steady.db);
steady.db.close();

// 2. Every night kept, then a first pass.
const kept = catalogue();
for (let night = 1; night <= nights; night++) kept.push(START + night * DAY);
const keptSize = size(kept.db);
const started = performance.now();
const first = pass(new JobHistory(kept.db), START + nights * DAY);
const firstPassMs = performance.now() - started;
const afterFirstPass = size(kept.db);
kept.db.close();

// 3. Pushed once, read by a pass long after.
const once = catalogue();
const onceStarted = performance.now();
const nothing = pass(new JobHistory(once.db), START + nights * DAY);
const oncePassMs = performance.now() - onceStarted;
once.db.close();

console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      items: itemCount,
      nights,
      historyDays: days,
      jobsPushed: itemCount * (nights + 1),
      steadyState: {
        ...steadySize,
        sizeByNight,
        passesRemovingJobs: passMs.length,
        passMs: passMs.length ? { p50: round(percentile(passMs, 50)), max: round(Math.max(...passMs)) } : null,
        longestPageMs: round(longestPageMs),
      },
      everyJobKept: keptSize,
      firstPass: {
        removed: first.removed,
        pages: first.pageMs.length,
        totalMs: Math.round(firstPassMs),
        pageMs: { p50: round(percentile(first.pageMs, 50)), max: round(Math.max(...first.pageMs)) },
        after: afterFirstPass,
      },
      pushedOnce: { removed: nothing.removed, pages: nothing.pageMs.length, passMs: round(oncePassMs) },
    },
    null,
    2,
  ),
);
fs.rmSync(steady.dataDir, { recursive: true, force: true });
fs.rmSync(kept.dataDir, { recursive: true, force: true });
fs.rmSync(once.dataDir, { recursive: true, force: true });
