import type { IngestItem } from '../../common/contract/ingest.ts';
import { isDiskFull } from '../domain/disk-condition.ts';
import type { Embedder } from '../embedders/embedder.ts';
import type { Db } from '../storage/db.ts';
import type { IndexRepo } from '../storage/index-repo.ts';
import type { JobRow } from '../storage/jobs/job-row.ts';
import type { TextPhase } from '../storage/jobs/text-phase.ts';
import { chunkItem } from './chunk.ts';
import { embedHash } from './process-batch.ts';
import { normalizeItem } from './normalize.ts';

export type TextPassDeps = {
  db: Db;
  index: IndexRepo;
  phase: TextPhase;
  /** The model the vectors will come from: its token counter cuts the chunks, its id is the item's. */
  embedder: Pick<Embedder, 'id' | 'maxTokens' | 'countTokens'>;
  overlapTokens: number;
  clock: () => number;
};

/** Jobs one claim of the text pass takes: a few milliseconds of work each at most. */
const CLAIM_JOBS = 16;

/**
 * The first of an item's two phases (docs/pipeline.md, "Two phases"): jobs whose text waits, in
 * order of acknowledgement, normalised, chunked and written as the item's row, chunks and keyword
 * rows (IndexRepo.writeText), so keyword search finds them before the embedding pass reaches
 * them. Runs for about `budgetMs`; true when jobs may still wait.
 *
 * A job this pass cannot write is left to the embedding pass, which writes text and vectors
 * together and reports the failure as every run does.
 */
export function runTextPass(deps: TextPassDeps, budgetMs: number): boolean {
  const until = performance.now() + budgetMs;
  for (;;) {
    const jobs = deps.phase.claim(CLAIM_JOBS);
    if (jobs.length === 0) return false;
    for (const [i, job] of jobs.entries()) {
      if (performance.now() >= until) {
        deps.phase.release(jobs.slice(i).map((j) => j.id));
        return true;
      }
      try {
        writeText(job, deps);
      } catch (error) {
        if (isDiskFull(error)) {
          deps.phase.release(jobs.slice(i).map((j) => j.id));
          throw error;
        }
        deps.db.transaction(() => deps.phase.done(job.id, job.seq))();
      }
    }
  }
}

function writeText(job: JobRow, deps: TextPassDeps): void {
  const identity = { knowledgeBaseId: job.knowledge_base_id, integrationId: job.integration_id, externalId: job.external_id };
  const stored = deps.index.storedVersion(identity);
  // Superseded, settled, or the same content already indexed: nothing to show sooner.
  const needed = (job.status === 'queued' || job.status === 'processing') && stored.seq < job.seq && stored.contentHash !== job.content_hash;
  if (!needed) return deps.db.transaction(() => deps.phase.done(job.id, job.seq))();
  const data = JSON.parse(job.data) as IngestItem['data'];
  const normalized = normalizeItem(job.source_type as IngestItem['sourceType'], data);
  const options = { maxTokens: deps.embedder.maxTokens, overlapTokens: deps.overlapTokens, countTokens: deps.embedder.countTokens };
  const chunks = chunkItem(normalized, options).map((chunk) => ({
    position: chunk.index,
    text: chunk.text,
    tokenCount: chunk.tokenCount,
    embedHash: embedHash(chunk.embedText),
  }));
  deps.db
    .transaction(() => {
      deps.index.writeText(
        {
          ...identity,
          sourceType: job.source_type,
          title: normalized.title,
          content: data.content,
          text: normalized.text,
          url: data.url ?? null,
          sourceData: data.sourceData ? JSON.stringify(data.sourceData) : null,
          contentHash: job.content_hash,
          seq: job.seq,
          embedderId: deps.embedder.id,
          chunks,
          originalSha256: null,
        },
        deps.clock(),
      );
      deps.phase.done(job.id, job.seq);
    })
    .immediate();
}
