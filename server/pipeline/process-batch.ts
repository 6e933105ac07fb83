import { createHash } from 'node:crypto';
import type { IngestItem } from '../../common/contract/ingest.ts';
import { JOB_NOTES } from '../../common/contract/jobs.ts';
import { isDiskFull } from '../domain/disk-condition.ts';
import type { Db } from '../storage/db.ts';
import type { ItemCommit } from '../storage/index-commits.ts';
import type { IndexedChunk, IndexRepo } from '../storage/index-repo.ts';
import type { JobRuns } from '../storage/jobs/job-runs.ts';
import type { ClaimedJob } from '../domain/job-record.ts';
import { JOB_OVERHEAD_CHARACTERS, jobCost } from '../domain/fair-queue.ts';
import type { Embedder } from '../embedders/embedder.ts';
import { fileKindOf } from '../../common/contract/files.ts';
import { fileOf } from '../domain/file-items.ts';
import type { Originals } from '../storage/originals.ts';
import { chunkItem } from './chunk.ts';
import { chunkDocument } from './chunk-document.ts';
import { ExtractionError } from './extract/document.ts';
import type { FileExtractor } from './extract/extractor.ts';
import { normalizeItem } from './normalize.ts';
import type { Chunk, ChunkOptions } from './types.ts';

export type PipelineDeps = {
  db: Db;
  runs: JobRuns;
  index: IndexRepo;
  /** Writes an indexed item and ends its job in one transaction (storage/index-commits.ts). */
  commitItem: ItemCommit;
  embedder: Embedder;
  /** Tokens of the previous chunk repeated at the start of the next. */
  overlapTokens: number;
  clock: () => number;
  /** Files as knowledge: where uploaded originals are kept, and the thread that reads them. */
  files?: { originals: Originals; extractor: FileExtractor };
};

export type BatchReport = {
  succeeded: number;
  skipped: number;
  cancelled: number;
  retrying: number;
  failed: number;
  chunksEmbedded: number;
  chunksFromCache: number;
  /** The batch's work in jobCost units (text chunked and embedded, plus each job's fixed work). */
  cost: number;
  /** The jobs that succeeded or failed for good, for the main thread's job.succeeded / job.failed webhooks. */
  ended: Array<{ id: number; status: 'succeeded' | 'failed' }>;
};

type Prepared = {
  job: ClaimedJob;
  data: IngestItem['data'];
  title: string;
  text: string;
  chunks: Chunk[];
  /** What the item row keeps as its content: what was pushed, or the text extracted from its file. */
  content: string;
  /** The uploaded file it was extracted from; the original its stored version had. */
  original: string | null;
  replacedOriginal: string | null;
  /** Said on the finished job: how its text was obtained when that is worth knowing (OCR). */
  note?: string;
  /** The stored item, when the text phase wrote it: its chunks may hold vectors carried over from the version before. */
  textPhase: number | null;
};

/** A file job that cannot succeed: its reason, and whether trying again is pointless. */
class JobFailure extends Error {
  constructor(
    message: string,
    readonly final: boolean,
  ) {
    super(message);
  }
}

function emptyReport(): BatchReport {
  return { succeeded: 0, skipped: 0, cancelled: 0, retrying: 0, failed: 0, chunksEmbedded: 0, chunksFromCache: 0, cost: 0, ended: [] };
}

/** Counts a job's outcome; one that succeeded or failed for good is also named in `ended`. */
function count(report: BatchReport, job: ClaimedJob, outcome: 'succeeded' | 'cancelled' | 'retrying' | 'failed'): void {
  report[outcome]++;
  if (outcome === 'succeeded' || outcome === 'failed') report.ended.push({ id: job.id, status: outcome });
}

function identityOf(job: ClaimedJob) {
  return { knowledgeBaseId: job.knowledgeBaseId, integrationId: job.integrationId, externalId: job.externalId };
}

/** What the item's row keeps (both phases write it): its job, and what the pipeline read of it. */
export function itemRow(
  job: ClaimedJob,
  data: IngestItem['data'],
  read: { title: string; content: string; text: string; original: string | null },
  embedderId: string,
) {
  return {
    ...identityOf(job),
    sourceType: job.sourceType,
    title: read.title,
    content: read.content,
    text: read.text,
    url: data.url ?? null,
    sourceData: data.sourceData ? JSON.stringify(data.sourceData) : null,
    contentHash: job.contentHash,
    seq: job.seq,
    embedderId,
    originalSha256: read.original,
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs claimed jobs through normalize → chunk → embed → index. Chunks of all jobs are embedded
 * together (the model is fastest in batches), each distinct text once, and never again when a
 * chunk with the same embedded text already has a vector from this model.
 */
export async function processBatch(jobs: ClaimedJob[], deps: PipelineDeps): Promise<BatchReport> {
  const report = emptyReport();
  const { runs, index, embedder } = deps;
  const prepared: Prepared[] = [];

  for (const job of jobs) {
    report.cost += JOB_OVERHEAD_CHARACTERS;
    const stored = index.storedVersion(identityOf(job));
    // The text phase may have written this very version already: its vectors are still to come.
    if (stored.seq > job.seq || (stored.seq === job.seq && stored.indexing !== 'text')) {
      runs.finish(job.id, 'cancelled', deps.clock(), JOB_NOTES.superseded);
      report.cancelled++;
      continue;
    }
    const unchanged = stored.contentHash === job.contentHash && stored.embedderId === embedder.id && stored.indexing === 'complete';
    if (unchanged && !job.forceRefresh) {
      runs.finish(job.id, 'skipped', deps.clock());
      report.skipped++;
      continue;
    }
    try {
      const data = JSON.parse(job.data) as IngestItem['data'];
      const chunkOptions = { maxTokens: embedder.maxTokens, overlapTokens: deps.overlapTokens, countTokens: embedder.countTokens };
      const item = fileOf(data) ? await prepareFile(job, data, chunkOptions, deps) : prepareItem(job, data, chunkOptions);
      const textPhase = stored.indexing === 'text' && stored.itemId !== null ? stored.itemId : null;
      prepared.push({ job, data, ...item, replacedOriginal: stored.originalSha256, textPhase });
      report.cost += jobCost(item.original ? { title: item.title, content: item.text } : data) - JOB_OVERHEAD_CHARACTERS;
    } catch (error) {
      const final = error instanceof JobFailure && error.final;
      count(report, job, runs.recordFailure(job, errorMessage(error), deps.clock(), final));
    }
  }
  if (prepared.length === 0) return report;

  let vectors: Map<string, Float32Array>;
  try {
    vectors = await embedAll(prepared, deps, report);
  } catch (error) {
    // A full disk is no fault of the jobs: the worker pauses and they are given back untouched.
    if (isDiskFull(error)) throw error;
    for (const { job } of prepared) count(report, job, runs.recordFailure(job, `embedding failed: ${errorMessage(error)}`, deps.clock()));
    return report;
  }

  for (const item of prepared) {
    try {
      const outcome = writeItem(item, vectors, deps);
      count(report, item.job, outcome);
      // The version replaced was extracted from another file: that original goes once nothing uses it.
      if (outcome === 'succeeded' && item.replacedOriginal && item.replacedOriginal !== item.original) {
        deps.files?.originals.removeUnused(deps.db, [item.replacedOriginal]);
      }
    } catch (error) {
      if (isDiskFull(error)) throw error;
      count(report, item.job, runs.recordFailure(item.job, `indexing failed: ${errorMessage(error)}`, deps.clock()));
    }
  }
  return report;
}

function prepareItem(job: ClaimedJob, data: IngestItem['data'], options: ChunkOptions) {
  const normalized = normalizeItem(job.sourceType as IngestItem['sourceType'], data);
  const chunks = chunkItem(normalized, options);
  return { title: normalized.title, text: normalized.text, chunks, content: data.content, original: null };
}

/**
 * A file's item: its original read by the extraction thread (never on this thread's own loop:
 * a hostile file ends that thread, not this one), then chunked by its pages or headings.
 */
async function prepareFile(job: ClaimedJob, data: IngestItem['data'], options: ChunkOptions, deps: PipelineDeps) {
  const file = fileOf(data)!;
  const kind = fileKindOf(file.name);
  if (!deps.files) throw new Error('this pipeline does not read files');
  if (!kind) throw new JobFailure(`${file.name}: not a kind of file LocalIQ reads`, true);
  const path = deps.files.originals.pathOf(file.sha256);
  if (!deps.files.originals.has(file.sha256)) {
    // Tried once more: an upload of the same bytes racing a deletion puts its copy back right
    // after its commit (storage/originals.ts), which a worker claiming at once could precede.
    throw new JobFailure(`${file.name}: the uploaded file is no longer in the data folder; upload it again`, job.attempts > 1);
  }
  try {
    const document = await deps.files.extractor.extract(path, kind);
    const item = chunkDocument(document, file.name, options);
    return { ...item, content: item.text, original: file.sha256, ...(document.ocrPages ? { note: ocrNote(document.ocrPages) } : {}) };
  } catch (error) {
    if (error instanceof ExtractionError) throw new JobFailure(`${file.name}: ${error.message}`, true);
    throw error;
  }
}

/** The finished job says its text was recognised in pictures, so misread words are no surprise. */
function ocrNote(pages: number[]): string {
  const list = pages.length <= 10 ? pages.join(', ') : `${pages.slice(0, 10).join(', ')} and ${pages.length - 10} more`;
  return `text read by OCR (text recognition) from ${pages.length} scanned page(s) without a text layer: page(s) ${list}`;
}

export function embedHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

async function embedAll(prepared: Prepared[], deps: PipelineDeps, report: BatchReport): Promise<Map<string, Float32Array>> {
  const vectors = new Map<string, Float32Array>();
  const missing = new Map<string, string>();
  for (const item of prepared) {
    if (item.textPhase === null || item.job.forceRefresh) continue;
    for (const [hash, vector] of deps.index.storedVectors(item.textPhase)) {
      if (vectors.has(hash)) continue;
      vectors.set(hash, vector);
      report.chunksFromCache++;
    }
  }
  for (const chunk of prepared.flatMap((p) => p.chunks)) {
    const hash = embedHash(chunk.embedText);
    if (vectors.has(hash) || missing.has(hash)) continue;
    const cached = deps.index.cachedVector(hash, deps.embedder.id);
    if (cached) {
      vectors.set(hash, cached);
      report.chunksFromCache++;
    } else missing.set(hash, chunk.embedText);
  }
  if (missing.size > 0) {
    const texts = [...missing.values()];
    const embedded = await deps.embedder.embed(texts);
    [...missing.keys()].forEach((hash, i) => vectors.set(hash, embedded[i]!));
    report.chunksEmbedded += texts.length;
  }
  return vectors;
}

function writeItem(item: Prepared, vectors: Map<string, Float32Array>, deps: PipelineDeps): 'succeeded' | 'cancelled' {
  const { job, data } = item;
  const chunks: IndexedChunk[] = item.chunks.map((chunk) => {
    const hash = embedHash(chunk.embedText);
    return {
      position: chunk.index,
      text: chunk.text,
      tokenCount: chunk.tokenCount,
      embedHash: hash,
      vector: vectors.get(hash)!,
      page: chunk.page,
      section: chunk.section,
      paragraph: chunk.paragraph,
    };
  });
  return deps.commitItem({ ...itemRow(job, data, item, deps.embedder.id), chunks }, job.id, deps.clock(), item.note ?? null);
}
