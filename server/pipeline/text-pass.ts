import type { IngestItem } from '../../common/contract/ingest.ts';
import { isDiskFull } from '../domain/disk-condition.ts';
import type { Embedder } from '../embedders/embedder.ts';
import type { TextCommit } from '../storage/index-commits.ts';
import type { IndexRepo, TextItem } from '../storage/index-repo.ts';
import type { ClaimedJob } from '../domain/job-record.ts';
import type { TextPhase } from '../storage/jobs/text-phase.ts';
import { chunkItem } from './chunk.ts';
import { embedHash, itemRow } from './process-batch.ts';
import { normalizeItem } from './normalize.ts';

export type TextPassDeps = {
  index: IndexRepo;
  phase: TextPhase;
  /** Writes a claim's texts and clears their jobs' text flags in one transaction (storage/index-commits.ts). */
  commitTexts: TextCommit;
  /** The model the vectors will come from: its token counter cuts the chunks, its id is the item's. */
  embedder: Pick<Embedder, 'id' | 'maxTokens' | 'countTokens'>;
  overlapTokens: number;
  clock: () => number;
};

/** Jobs one claim of the text pass takes, written in one transaction (a commit each cost more than their text). */
const CLAIM_JOBS = 32;

/**
 * The first of an item's two phases (docs/pipeline.md, "Two phases"): jobs whose text waits, in
 * order of acknowledgement, normalised, chunked and written as the item's row, chunks and keyword
 * rows (IndexRepo.writeText), so keyword search finds them before the embedding pass reaches
 * them. Runs claim after claim for about `budgetMs`; true when jobs may still wait.
 *
 * A job this pass cannot prepare or write is left to the embedding pass, which writes text and
 * vectors together and reports the failure as every run does; a full disk is thrown (the worker
 * waits), its jobs given back to the text phase.
 */
export function runTextPass(deps: TextPassDeps, budgetMs: number): boolean {
  const until = performance.now() + budgetMs;
  do {
    const jobs = deps.phase.claim(CLAIM_JOBS);
    if (jobs.length === 0) return false;
    const texts = jobs.map((job) => ({ job, item: prepare(job, deps) }));
    try {
      write(texts, deps);
    } catch (error) {
      if (isDiskFull(error)) {
        deps.phase.release(jobs.map((job) => job.id));
        throw error;
      }
      // One of them cannot be written: each alone, and one that fails is left to the embedding
      // pass, whose failures are counted and reported (a text phase never ends the worker).
      for (const [i, text] of texts.entries()) {
        try {
          write([text], deps);
        } catch (alone) {
          if (isDiskFull(alone)) {
            deps.phase.release(jobs.slice(i).map((job) => job.id));
            throw alone;
          }
          write([{ job: text.job, item: null }], deps);
        }
      }
    }
  } while (performance.now() < until);
  return true;
}

/** The texts' writes and their jobs' flags, in one transaction. */
function write(texts: Array<{ job: ClaimedJob; item: TextItem | null }>, deps: TextPassDeps): void {
  deps.commitTexts(texts, deps.clock());
}

/** The job's text as the item's text phase, or null when there is none to write. */
function prepare(job: ClaimedJob, deps: TextPassDeps): TextItem | null {
  const identity = { knowledgeBaseId: job.knowledgeBaseId, integrationId: job.integrationId, externalId: job.externalId };
  const stored = deps.index.storedVersion(identity);
  // Superseded, settled, or the same content already indexed: nothing to show sooner.
  const needed = (job.status === 'queued' || job.status === 'processing') && stored.seq < job.seq && stored.contentHash !== job.contentHash;
  if (!needed) return null;
  try {
    const data = JSON.parse(job.data) as IngestItem['data'];
    const normalized = normalizeItem(job.sourceType as IngestItem['sourceType'], data);
    const options = { maxTokens: deps.embedder.maxTokens, overlapTokens: deps.overlapTokens, countTokens: deps.embedder.countTokens };
    const chunks = chunkItem(normalized, options).map((chunk) => ({
      position: chunk.index,
      text: chunk.text,
      tokenCount: chunk.tokenCount,
      embedHash: embedHash(chunk.embedText),
    }));
    const read = { title: normalized.title, content: data.content, text: normalized.text, original: null };
    return { ...itemRow(job, data, read, deps.embedder.id), chunks };
  } catch {
    return null;
  }
}
