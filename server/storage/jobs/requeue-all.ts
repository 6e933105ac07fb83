import { PRIORITY_LEVELS, sortKey } from '../../domain/jobs.ts';
import type { Db } from '../db.ts';
import { prepareNextItemSeq } from '../item-seq.ts';
import { prepareCountInsertedAfter } from './job-counts.ts';
import { OPEN_STATUSES } from './sql.ts';

/**
 * Requeue all (→ queued), after the embedding model changed: every indexed item gets a new job
 * at low priority with forceRefresh, built from the item's stored content, except items that
 * already have an open job. One IMMEDIATE transaction. Returns how many it queued.
 */
export function prepareRequeueAll(db: Db): (now: number, maxAttempts: number) => number {
  const nextSeq = prepareNextItemSeq(db);
  const counts = prepareCountInsertedAfter(db);
  const requeueAll = db.prepare<[{ now: number; maxAttempts: number; base: number; sortKey: number }]>(
    `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data, content_hash,
       force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at, created_at, updated_at)
     SELECT i.integration_id || '-' || i.external_id, i.knowledge_base_id, i.integration_id, i.external_id,
       i.source_type,
       json_patch('{}', json_object('title', i.title, 'content', i.content, 'url', i.url,
         'sourceData', json(i.source_data))),
       i.content_hash, 1, ${PRIORITY_LEVELS.low}, @base + row_number() OVER (ORDER BY i.id), @now, @sortKey,
       'queued', @maxAttempts, @now, @now, @now
     FROM items i
     WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.knowledge_base_id = i.knowledge_base_id
       AND j.integration_id = i.integration_id AND j.external_id = i.external_id
       AND j.status IN ${OPEN_STATUSES})`,
  );
  return (now, maxAttempts) =>
    db
      .transaction(() => {
        const base = nextSeq(0) - 1;
        const lastId = counts.lastId();
        const { changes } = requeueAll.run({ now, maxAttempts, base, sortKey: sortKey(now, PRIORITY_LEVELS.low) });
        counts.countAfter(lastId);
        nextSeq(changes);
        return changes;
      })
      .immediate();
}
