import type { JobStatus } from '../../../common/contract/jobs.ts';
import type { Db } from '../db.ts';

/**
 * The job_counts table (jobs by knowledge base, state and priority) is kept in the transaction
 * that changes the jobs: triggers count every change of state and every deletion (migrations 9
 * and 11), and whoever inserts jobs counts them here, since a trigger on every insert made bulk
 * pushes about a quarter slower.
 */

/** The jobs one transaction inserted, gathered to be counted once at its end. */
export class InsertedJobs {
  private readonly tally = new Map<string, { knowledgeBaseId: string; status: JobStatus; priority: number; n: number }>();

  add(knowledgeBaseId: string, status: JobStatus, priority: number): void {
    // State and priority first: neither holds a slash, so the key cannot be ambiguous.
    const key = `${status}/${priority}/${knowledgeBaseId}`;
    const entry = this.tally.get(key);
    if (entry) entry.n++;
    else this.tally.set(key, { knowledgeBaseId, status, priority, n: 1 });
  }

  entries() {
    return this.tally.values();
  }
}

/** Counts gathered inserts; inside the transaction that inserted them. */
export function prepareCountInserted(db: Db): (inserted: InsertedJobs) => void {
  const add = db.prepare<[string, JobStatus, number, number]>(
    `INSERT INTO job_counts (knowledge_base_id, status, priority, n) VALUES (?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET n = n + excluded.n`,
  );
  return (inserted) => {
    for (const { knowledgeBaseId, status, priority, n } of inserted.entries()) add.run(knowledgeBaseId, status, priority, n);
  };
}

/**
 * Counts every job with an id above `lastId`: the jobs one INSERT … SELECT just wrote. Returns a
 * function that reads the last id (before the insert) and one that counts (after it).
 */
export function prepareCountInsertedAfter(db: Db): { lastId: () => number; countAfter: (lastId: number) => void } {
  const lastId = db.prepare<[], { id: number }>('SELECT coalesce(max(id), 0) AS id FROM jobs');
  const countAfter = db.prepare<[number]>(
    `INSERT INTO job_counts (knowledge_base_id, status, priority, n)
     SELECT knowledge_base_id, status, priority, count(*) FROM jobs WHERE id > ? GROUP BY 1, 2, 3
     ON CONFLICT DO UPDATE SET n = n + excluded.n`,
  );
  return { lastId: () => lastId.get()!.id, countAfter: (id) => void countAfter.run(id) };
}
