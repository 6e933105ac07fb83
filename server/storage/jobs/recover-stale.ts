import { JOB_NOTES } from '../../../common/contract/jobs.ts';
import type { Db } from '../db.ts';
import { prepareGiveUp } from './give-up.ts';
import type { JobRow } from './job-row.ts';
import { NOT_QUEUED } from './sql.ts';
import { prepareIsSuperseded } from './superseded.ts';

/**
 * How many crashes a suspect must have been alone in flight for before it is failed as a poison.
 * One could be a power cut that happened to land while it ran; the same job alone at two crashes
 * is no coincidence.
 */
export const POISON_SOLO_CRASHES = 2;

/** Why a poison job failed, with what the dying worker said when it said anything. */
export function poisonError(crashes: number, cause?: string): string {
  const why = cause ? `: ${cause}` : ' (the process stopped: a crash, a kill or a power cut)';
  return `crashed the pipeline each of the ${crashes} times it ran alone${why}`;
}

/** What the caller knows of the crash: which jobs a dead worker thread held, and its last words. */
export type Crash = { jobIds?: readonly number[]; cause?: string };

/**
 * Recover stale (processing → queued, cancelled or failed): jobs a crash left `processing`. At
 * start-up, every such job (no worker runs yet); when one worker thread died while others run,
 * only the jobs it held (`jobIds`), since the others' jobs are still in hand.
 *
 * A crash is evidence against a job only when that job is proven its cause. A batch in flight
 * holds up to a claim's worth of jobs, and a kill, a power cut or an OOM of the whole process
 * lands on whatever runs: charging each of them an attempt failed innocent jobs after a few
 * crashes. So the interrupted attempt is given back (attempts − 1, nothing added to `errors`),
 * and the jobs go back to the queue due at once, as suspects: a suspect is claimed alone and
 * nothing else runs beside it (claim.ts), so the next crash that interrupts it was its doing or
 * chance. A suspect that was alone in flight (the only job found) counts a solo crash; at
 * POISON_SOLO_CRASHES it fails for good, as a poison, with poisonError as its error (its payload
 * kept for a manual retry). A job whose newer version is queued is cancelled, superseded, as
 * before. Suspects stop being suspects when they settle. Returns how many jobs it found.
 */
export function prepareRecoverStale(db: Db): (now: number, crash?: Crash) => number {
  const stale = db.prepare<[], JobRow>(`SELECT * FROM jobs WHERE status = 'processing' AND ${NOT_QUEUED}`);
  const held = db.prepare<[{ ids: string }], JobRow>(
    `SELECT * FROM jobs WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'processing'`,
  );
  const requeue = db.prepare<[{ id: number; now: number; soloCrashes: number }]>(
    `UPDATE jobs SET status = 'queued', run_at = @now, locked_at = NULL, updated_at = @now,
       attempts = max(attempts - 1, 0), suspect = 1, solo_crashes = @soloCrashes
     WHERE id = @id AND status = 'processing'`,
  );
  const countSoloCrashes = db.prepare<[{ id: number; soloCrashes: number }]>('UPDATE jobs SET solo_crashes = @soloCrashes WHERE id = @id');
  const isSuperseded = prepareIsSuperseded(db);
  const giveUp = prepareGiveUp(db);
  return (now, crash = {}) =>
    db
      .transaction(() => {
        const jobs = crash.jobIds ? held.all({ ids: JSON.stringify(crash.jobIds) }) : stale.all();
        const alone = jobs.length === 1;
        for (const job of jobs) {
          if (isSuperseded({ knowledgeBaseId: job.knowledge_base_id, integrationId: job.integration_id, externalId: job.external_id })) {
            giveUp(job.id, { now, status: 'cancelled', error: job.last_error, note: JOB_NOTES.superseded, errors: job.errors });
            continue;
          }
          const soloCrashes = job.solo_crashes + (alone && job.suspect === 1 ? 1 : 0);
          if (soloCrashes < POISON_SOLO_CRASHES) {
            requeue.run({ id: job.id, now, soloCrashes });
            continue;
          }
          const error = poisonError(soloCrashes, crash.cause);
          const errors = JSON.stringify([...(JSON.parse(job.errors) as unknown[]), { attempt: job.attempts, message: error, at: new Date(now).toISOString() }]);
          giveUp(job.id, { now, status: 'failed', error, note: null, errors });
          countSoloCrashes.run({ id: job.id, soloCrashes });
        }
        return jobs.length;
      })
      .immediate();
}
