/**
 * A shop's catalogue for the job-history benches: products of about 1,200 characters pushed in
 * bulks of 1,000, and processed as the pipeline would leave them, by the repositories it uses:
 * each item's row written (no chunks) and its job finished.
 */
import type { IngestItem } from '../../common/contract/ingest.ts';
import type { Db } from '../../server/storage/db.ts';
import { IndexRepo } from '../../server/storage/index-repo.ts';
import type { JobRepo } from '../../server/storage/jobs/job-repo.ts';
import { JobRuns } from '../../server/storage/jobs/job-runs.ts';
import { VectorStore } from '../../server/storage/vector-store.ts';

/** The embedding model the benches' index is said to hold: unchanged re-pushes are skipped at once. */
export const CATALOGUE_MODEL = 'bench-model';

function product(i: number, version: number): IngestItem {
  return {
    integrationId: 'shop',
    knowledgeBaseId: 'kb-shop',
    sourceType: 'PRODUCT',
    externalId: `sku-${i}`,
    data: {
      title: `Product ${i}, version ${version}`,
      content: `Product ${i} is a well-made thing with many uses. `.repeat(24),
      url: `https://shop.example.com/products/${i}`,
    },
  } as IngestItem;
}

/** Pushes products 0 … count − 1 at `version`, as of `now`. */
export function pushCatalogue(repo: JobRepo, count: number, version: number, now: number): void {
  for (let start = 0; start < count; start += 1000) {
    const items = Array.from({ length: Math.min(1000, count - start) }, (_, k) => product(start + k, version));
    repo.enqueue([{ items, apiKeyId: 'bench-key' }], { now, maxAttempts: 3, activeModelId: CATALOGUE_MODEL });
  }
}

/** Claims every queued job and finishes it as of `now`, writing its item's row. */
export function processQueued(db: Db, now: number): void {
  const runs = new JobRuns(db);
  const index = new IndexRepo(db, new VectorStore(db, CATALOGUE_MODEL, 4));
  for (let jobs = runs.claim(500, now); jobs.length > 0; jobs = runs.claim(500, now)) {
    db.transaction(() => {
      for (const job of jobs) {
        const data = JSON.parse(job.data) as IngestItem['data'];
        index.writeItem(
          {
            knowledgeBaseId: job.knowledgeBaseId, integrationId: job.integrationId, externalId: job.externalId,
            sourceType: job.sourceType, title: data.title ?? '', content: data.content ?? '', text: data.content ?? '',
            url: data.url ?? null, sourceData: null, contentHash: job.contentHash, seq: job.seq, embedderId: CATALOGUE_MODEL, chunks: [],
          },
          now,
        );
        runs.finish(job.id, 'succeeded', now);
      }
    })();
  }
}
