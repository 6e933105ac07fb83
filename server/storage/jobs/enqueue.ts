import type { EnqueueOptions, EnqueueResult, PushInput } from '../../domain/job-queue.ts';
import { jobCost, LaneClock, laneOf } from '../../domain/fair-queue.ts';
import { fileOf } from '../../domain/file-items.ts';
import { contentHash, jobIdOf, priorityLevel, sortKey } from '../../domain/jobs.ts';
import type { Db } from '../db.ts';
import { prepareNextItemSeq } from '../item-seq.ts';
import { KnowledgeBaseCreation } from '../knowledge-bases.ts';
import { prepareAddUsage } from '../usage-repo.ts';
import { InsertedJobs, prepareCountInserted } from './job-counts.ts';
import { prepareReplace } from './replace.ts';
import { SETTLED_DATA } from './sql.ts';

/**
 * A pushed item's text is indexed by the text phase thread as soon as it is queued (1); an
 * uploaded file's only once the embedding pass has read it (0): reading a file is the slow part.
 */
function textPhaseOf(data: PushInput['items'][number]['data']): 0 | 1 {
  return fileOf(data) ? 0 : 1;
}

/** What one enqueue transaction gathers: knowledge bases it created, jobs it inserted. */
type Batch = { createdKbs: Set<string>; inserted: InsertedJobs };

/**
 * Enqueue (→ queued, or → skipped at once): each pushed item, in order, either
 * - replaces its item's queued job (replace.ts),
 * - or, when the active model already indexed this very content and no run of the item is under
 *   way, becomes a job inserted `skipped`: settled without a trip through the queue, so a full
 *   re-sync of an unchanged catalogue costs one lookup per item,
 * - or becomes a job inserted `queued`, arriving in its lane's turn (domain/fair-queue.ts).
 *
 * Several pushes share one IMMEDIATE transaction (one disk sync for all of them): when the
 * returned function returns, every job is on disk. The later of two items with one identity wins.
 */
export function prepareEnqueue(db: Db): (pushes: PushInput[], opts: EnqueueOptions) => EnqueueResult[] {
  const nextSeq = prepareNextItemSeq(db);
  const knowledgeBases = new KnowledgeBaseCreation(db);
  const countInserted = prepareCountInserted(db);
  const addUsage = prepareAddUsage(db);
  const replace = prepareReplace(db);
  const lanes = new LaneClock();
  // What a push needs to know about its item, in one lookup: its queued job, if any, and
  // otherwise whether the active model (the last parameter; NULL for none) has already indexed
  // this very content, vectors included (an item left in its text phase by a job that failed is
  // not), with no run under way, so the push can settle as skipped at once.
  const itemState = db.prepare<
    [string, string, string, string, string | null],
    { queued_id: number | null; queued_key: number | null; queued_priority: number | null; unchanged: number }
  >(
    `SELECT q.id AS queued_id, q.sort_key AS queued_key, q.priority AS queued_priority,
       q.id IS NULL AND EXISTS (SELECT 1 FROM items i
         WHERE i.knowledge_base_id = k.kb AND i.integration_id = k.integ AND i.external_id = k.ext
           AND i.content_hash = k.hash AND i.embedder_id = k.model AND i.indexing = 'complete'
           AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.knowledge_base_id = k.kb
             AND j.integration_id = k.integ AND j.external_id = k.ext AND j.status = 'processing')) AS unchanged
     FROM (SELECT ? AS kb, ? AS integ, ? AS ext, ? AS hash, ? AS model) k
     LEFT JOIN jobs q ON q.knowledge_base_id = k.kb AND q.integration_id = k.integ
       AND q.external_id = k.ext AND q.status = 'queued'`,
  );
  // The common case of a push, with positional parameters: binding fourteen named values
  // from an object cost more than the rest of the statement's preparation.
  const insertQueued = db.prepare<
    [string, string, string, string, string, string, string, number, number, number, number, number, number, number, string | null, number, number, number]
  >(
    `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data,
       content_hash, force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at,
       api_key_id, created_at, updated_at, text_pending)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)`,
  );
  // Settled jobs keep no payload (SETTLED_DATA).
  const insertSkipped = db.prepare<
    [string, string, string, string, string, string, number, number, number, number, number, number, number, string | null, number, number, number, number]
  >(
    `INSERT INTO jobs (job_id, knowledge_base_id, integration_id, external_id, source_type, data,
       content_hash, force_refresh, priority, seq, enqueued_at, sort_key, status, max_attempts, run_at,
       api_key_id, created_at, updated_at, started_at, finished_at)
     VALUES (?, ?, ?, ?, ?, ${SETTLED_DATA}, ?, ?, ?, ?, ?, ?, 'skipped', ?, ?, ?, ?, ?, ?, ?)`,
  );

  function enqueueOne(push: PushInput, opts: EnqueueOptions, batch: Batch, firstSeq: number): EnqueueResult {
    const jobIds: string[] = [];
    const touched = new Set<number>();
    const skippedPerKnowledgeBase = new Map<string, number>();
    let lastSortKey = 0;
    let seq = firstSeq;
    const now = opts.now;
    for (const item of push.items) {
      knowledgeBases.ensure(item.knowledgeBaseId, now, batch.createdKbs);
      const priority = priorityLevel(item);
      const hash = contentHash(item);
      const forceRefresh = item.options?.forceRefresh ? 1 : 0;
      const itemSeq = seq++;
      const jobId = jobIdOf(item.integrationId, item.externalId);
      const state = itemState.get(item.knowledgeBaseId, item.integrationId, item.externalId, hash, opts.activeModelId)!;
      let id: number;
      let key: number;
      if (state.queued_id !== null) {
        key = replace({
          id: state.queued_id, queuedKey: state.queued_key!, queuedPriority: state.queued_priority!,
          sourceType: item.sourceType, data: JSON.stringify(item.data), contentHash: hash, forceRefresh, priority, seq: itemSeq,
          maxAttempts: opts.maxAttempts, apiKeyId: push.apiKeyId, now, textPending: textPhaseOf(item.data),
        });
        id = state.queued_id;
      } else if (state.unchanged && !forceRefresh) {
        id = Number(
          insertSkipped.run(
            jobId, item.knowledgeBaseId, item.integrationId, item.externalId, item.sourceType, hash,
            forceRefresh, priority, itemSeq, now, sortKey(now, priority), opts.maxAttempts, now, push.apiKeyId,
            now, now, now, now,
          ).lastInsertRowid,
        );
        skippedPerKnowledgeBase.set(item.knowledgeBaseId, (skippedPerKnowledgeBase.get(item.knowledgeBaseId) ?? 0) + 1);
        batch.inserted.add(item.knowledgeBaseId, 'skipped', priority);
        key = 0;
      } else {
        const arrival = lanes.arrive(laneOf(item.integrationId, push.items.length), now, jobCost(item.data) * (opts.msPerCost ?? 0));
        key = sortKey(arrival, priority);
        id = Number(
          insertQueued.run(
            jobId, item.knowledgeBaseId, item.integrationId, item.externalId, item.sourceType, JSON.stringify(item.data), hash,
            forceRefresh, priority, itemSeq, now, key, opts.maxAttempts, now, push.apiKeyId, now, now, textPhaseOf(item.data),
          ).lastInsertRowid,
        );
        batch.inserted.add(item.knowledgeBaseId, 'queued', priority);
      }
      touched.add(id);
      lastSortKey = Math.max(lastSortKey, key);
      jobIds.push(jobId);
    }
    // A job inserted settled changes no state, so the usage trigger on outcomes (migration 4)
    // does not see it: counted here, once per push and knowledge base.
    for (const [knowledgeBaseId, count] of skippedPerKnowledgeBase) {
      addUsage('jobs_skipped', { keyId: push.apiKeyId, knowledgeBaseId }, count, now);
    }
    return { jobIds, jobCount: touched.size, lastSortKey };
  }

  return (pushes, opts) => {
    const batch: Batch = { createdKbs: new Set(), inserted: new InsertedJobs() };
    const results = db
      .transaction(() => {
        // One reservation of sequence numbers for the whole batch, handed out in order.
        let seq = nextSeq(pushes.reduce((n, push) => n + push.items.length, 0));
        const pushed = pushes.map((push) => {
          const result = enqueueOne(push, opts, batch, seq);
          seq += push.items.length;
          return result;
        });
        countInserted(batch.inserted);
        return pushed;
      })
      .immediate();
    knowledgeBases.committed(batch.createdKbs);
    return results;
  };
}
