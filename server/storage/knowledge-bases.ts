import type { Db } from './db.ts';

/**
 * Knowledge bases come into being with their first push: the push's transaction writes the row.
 * Those known to exist (their transaction committed) are remembered, so a push does not write
 * their row again.
 */
export class KnowledgeBaseCreation {
  private readonly known = new Set<string>();
  private readonly insert;

  constructor(db: Db) {
    this.insert = db.prepare<[string, number]>('INSERT INTO knowledge_bases (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING');
  }

  /** Inside the push's transaction; `created` gathers the knowledge bases this transaction wrote. */
  ensure(id: string, now: number, created: Set<string>): void {
    if (this.known.has(id) || created.has(id)) return;
    this.insert.run(id, now);
    created.add(id);
  }

  /** Once the transaction committed: what it created exists for good. */
  committed(created: Set<string>): void {
    for (const id of created) this.known.add(id);
  }
}
