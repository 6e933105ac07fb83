import type { Db } from '../db.ts';
import type { ItemIdentity } from '../../domain/job-record.ts';

/**
 * Whether a newer version of the job's item is queued: a run of this one that did not make it
 * (a failed attempt, a crash) is cancelled rather than tried again, since the newer one replaces it.
 */
export function prepareIsSuperseded(db: Db): (job: ItemIdentity) => boolean {
  const newerQueued = db.prepare<[ItemIdentity], { n: number }>(
    `SELECT count(*) AS n FROM jobs WHERE knowledge_base_id = @knowledgeBaseId
       AND integration_id = @integrationId AND external_id = @externalId AND status = 'queued'`,
  );
  return ({ knowledgeBaseId, integrationId, externalId }) => newerQueued.get({ knowledgeBaseId, integrationId, externalId })!.n > 0;
}
