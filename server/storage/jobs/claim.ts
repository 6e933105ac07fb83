import { FILE_LIMITS } from '../../../common/contract/files.ts';
import type { Db } from '../db.ts';
import type { JobRow } from './job-row.ts';
import { NOT_QUEUED } from './sql.ts';

/**
 * Most characters of payload one claim takes (its first job always goes, whatever its size). A
 * batch of 8 ordinary items stays far below; 20,000 characters are about 50 chunks of prose. A
 * job over it is a large one (see prepareClaim).
 */
export const CLAIM_CHARACTERS = 20_000;

/**
 * A job's characters: its payload's, or for an uploaded file (whose payload only names it) its
 * size, up to the most text one file may yield, as its queue cost counts it (domain/fair-queue.ts).
 */
const FILE_CHARACTERS = `coalesce(min(json_extract(data, '$.file.bytes'), ${FILE_LIMITS.textCharacters}), length(data))`;

/**
 * The due jobs in claim order, stopping after `limit`. Left to itself, the planner read every
 * queued job through the status index and sorted them all, inside the write transaction that
 * every commit waits for (bench/queue-scale.ts); test/unit/server/storage/jobs/job-repo.test.ts
 * checks the plan.
 */
export const CLAIM_ORDER_SQL = `SELECT id, ${FILE_CHARACTERS} AS characters FROM jobs INDEXED BY jobs_claim_order
  WHERE status = 'queued' AND run_at <= @now ORDER BY sort_key LIMIT @limit`;

/** The jobs in hand (few: a claim's worth per worker), through the index of settled states. */
const IN_FLIGHT_SQL = `SELECT count(*) AS jobs, coalesce(sum(suspect), 0) AS suspects,
    coalesce(sum(${FILE_CHARACTERS} > ${CLAIM_CHARACTERS}), 0) AS large
  FROM jobs WHERE status = 'processing' AND ${NOT_QUEUED}`;

/** The first due suspect in claim order (migration 23's partial index). */
const DUE_SUSPECT_SQL = `SELECT id FROM jobs INDEXED BY jobs_queued_suspects
  WHERE status = 'queued' AND suspect = 1 AND run_at <= @now ORDER BY sort_key LIMIT 1`;

/**
 * Candidates read past a claim's `limit` when large jobs are passed over: an ordinary job further
 * down the queue still goes before the worker idles.
 */
const LOOK_AHEAD = 256;

/**
 * Claim (queued → processing): a worker takes up to `limit` due jobs in claim order (the
 * fairest first: priority, aging and lanes are all in the claim key, domain/jobs.ts), in one
 * IMMEDIATE transaction, and stops after the job that takes the batch past CLAIM_CHARACTERS: a
 * worker holds a batch until every job of it is done, so a large item goes alone and no small
 * job waits behind it. Each claim counts as an attempt. Returns the claimed jobs in claim order.
 *
 * Two rules keep work moving whatever is queued:
 * - Suspects of a crash (recover-stale.ts) run alone, so that a crash while one runs proves
 *   something: while a suspect is in hand nothing else is claimed, and a due suspect is claimed
 *   by itself once nothing else is in hand (workers wait for the batches in hand to end; the pool
 *   wakes them when one does). A crash therefore costs one batch's jobs a run each, one at a time.
 * - With `workers` > 1, large jobs (over CLAIM_CHARACTERS: a long page, a file) hold at most
 *   `workers` − 1 workers: the last one is left to ordinary jobs, so that one integration's large
 *   items, which take a worker for tens of seconds each, never keep another integration's small
 *   push waiting behind them (docs/benchmarks.md). A large job passed over keeps its place.
 */
export function prepareClaim(db: Db): (limit: number, now: number, workers?: number) => JobRow[] {
  const claimOrder = db.prepare<[{ now: number; limit: number }], { id: number; characters: number }>(CLAIM_ORDER_SQL);
  const inFlight = db.prepare<[], { jobs: number; suspects: number; large: number }>(IN_FLIGHT_SQL);
  const dueSuspect = db.prepare<[{ now: number }], { id: number }>(DUE_SUSPECT_SQL);
  const claim = db.prepare<[{ now: number; ids: string }], JobRow>(
    `UPDATE jobs SET status = 'processing', locked_at = @now, started_at = @now, updated_at = @now,
       attempts = attempts + 1
     WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'queued'
     RETURNING *`,
  );
  const choose = (limit: number, now: number, workers: number): number[] => {
    const held = inFlight.get()!;
    if (held.suspects > 0) return [];
    const suspect = dueSuspect.get({ now });
    if (suspect) return held.jobs === 0 ? [suspect.id] : [];
    const largeAllowed = workers <= 1 || held.large < workers - 1;
    const ids: number[] = [];
    let characters = 0;
    for (const candidate of claimOrder.all({ now, limit: largeAllowed ? limit : limit + LOOK_AHEAD })) {
      if (!largeAllowed && candidate.characters > CLAIM_CHARACTERS) continue;
      if (ids.length > 0 && characters + candidate.characters > CLAIM_CHARACTERS) break;
      ids.push(candidate.id);
      characters += candidate.characters;
      if (ids.length === limit) break;
    }
    return ids;
  };
  return (limit, now, workers = 1) =>
    db
      .transaction(() => {
        const ids = choose(limit, now, workers);
        return ids.length === 0 ? [] : claim.all({ now, ids: JSON.stringify(ids) });
      })
      .immediate()
      .sort((a, b) => a.sort_key - b.sort_key);
}
