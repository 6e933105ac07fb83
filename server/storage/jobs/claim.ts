import { FILE_LIMITS } from '../../../common/contract/files.ts';
import type { Db } from '../db.ts';
import type { JobRow } from './job-row.ts';

/**
 * Most characters of payload one claim takes (its first job always goes, whatever its size). A
 * batch of 8 ordinary items stays far below; 20,000 characters are about 50 chunks of prose.
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

/**
 * Claim (queued → processing): a worker takes up to `limit` due jobs in claim order (the
 * fairest first: priority, aging and lanes are all in the claim key, domain/jobs.ts), in one
 * IMMEDIATE transaction, and stops after the job that takes the batch past CLAIM_CHARACTERS: a
 * worker holds a batch until every job of it is done, so a large item goes alone and no small
 * job waits behind it. Each claim counts as an attempt. Returns the claimed jobs in claim order.
 */
export function prepareClaim(db: Db): (limit: number, now: number) => JobRow[] {
  const claimOrder = db.prepare<[{ now: number; limit: number }], { id: number; characters: number }>(CLAIM_ORDER_SQL);
  const claim = db.prepare<[{ now: number; ids: string }], JobRow>(
    `UPDATE jobs SET status = 'processing', locked_at = @now, started_at = @now, updated_at = @now,
       attempts = attempts + 1
     WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'queued'
     RETURNING *`,
  );
  return (limit, now) =>
    db
      .transaction(() => {
        const ids: number[] = [];
        let characters = 0;
        for (const candidate of claimOrder.all({ now, limit })) {
          if (ids.length > 0 && characters + candidate.characters > CLAIM_CHARACTERS) break;
          ids.push(candidate.id);
          characters += candidate.characters;
        }
        return ids.length === 0 ? [] : claim.all({ now, ids: JSON.stringify(ids) });
      })
      .immediate()
      .sort((a, b) => a.sort_key - b.sort_key);
}
