import { JOB_NOTES } from '../../common/contract/jobs.ts';
import type { Db } from './db.ts';
import type { IndexedItem, IndexRepo, TextItem } from './index-repo.ts';
import type { JobRuns } from './jobs/job-runs.ts';
import type { TextPhase } from './jobs/text-phase.ts';

/*
 * The pipeline's writes that land together, each in one IMMEDIATE transaction that storage opens:
 * the pipeline says what to write, never how it is made atomic.
 */

/** An item indexed with its job's end: both or neither. 'cancelled' when a newer version is stored already. */
export type ItemCommit = (item: IndexedItem, jobId: number, now: number, note: string | null) => 'succeeded' | 'cancelled';

export function prepareItemCommit(db: Db, index: IndexRepo, runs: JobRuns): ItemCommit {
  return (item, jobId, now, note) =>
    db
      .transaction(() => {
        const written = index.writeItem(item, now);
        const outcome = written ? 'succeeded' : 'cancelled';
        runs.finish(jobId, outcome, now, written ? note : JOB_NOTES.superseded);
        return outcome;
      })
      .immediate();
}

/** A claim's texts (the text phase) with their jobs' text flags cleared: one transaction for all of them. */
export type TextCommit = (texts: Array<{ job: { id: number; seq: number }; item: TextItem | null }>, now: number) => void;

export function prepareTextCommit(db: Db, index: IndexRepo, phase: TextPhase): TextCommit {
  return (texts, now) =>
    db
      .transaction(() => {
        for (const { job, item } of texts) {
          if (item) index.writeText(item, now);
          phase.done(job.id, job.seq);
        }
      })
      .immediate();
}
