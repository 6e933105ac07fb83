import { JOB_NOTES } from '../../../common/contract/jobs.ts';
import type { ItemIdentity } from '../../domain/job-record.ts';
import type { Db } from '../db.ts';
import { OPEN_STATUSES, SETTLED_DATA } from './sql.ts';

/**
 * Cancel on delete (queued or processing → cancelled): deleting an item cancels its open jobs,
 * inside the deletion's transaction (item-repo.ts). A running job is cancelled too: it could
 * only end cancelled (the deletion's tombstone has a newer seq than its own), and the deletion's
 * answer counts it. The worker's own finish or failure then finds it no longer processing and
 * changes nothing. The job's note says the item was deleted; its last error, if an attempt
 * failed, stays. Returns how many jobs it cancelled.
 */
export function prepareCancelOnDelete(db: Db): (identity: ItemIdentity, now: number) => number {
  const cancel = db.prepare<[ItemIdentity & { now: number; note: string }]>(
    `UPDATE jobs SET status = 'cancelled', finished_at = @now, updated_at = @now, locked_at = NULL,
       note = @note, data = ${SETTLED_DATA}
     WHERE knowledge_base_id = @knowledgeBaseId AND integration_id = @integrationId
       AND external_id = @externalId AND status IN ${OPEN_STATUSES}`,
  );
  return ({ knowledgeBaseId, integrationId, externalId }, now) =>
    cancel.run({ knowledgeBaseId, integrationId, externalId, now, note: JOB_NOTES.deleted }).changes;
}
