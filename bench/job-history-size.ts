/**
 * What the job history costs on disk: a catalogue of items pushed, processed, then re-synced
 * unchanged several times (as a nightly sync does), and once more with every item changed. Prints
 * the bytes the jobs table and its indexes take per job (pages, and the jobs' rows alone), from
 * SQLite's dbstat.
 * Processing is stood in for by the repositories the pipeline uses: each item's row is written
 * as the pipeline writes it (no chunks) and its job finished.
 * Usage: node --import tsx bench/job-history-size.ts [--items 20000 --resyncs 5]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { IngestItem } from '../server/contract/ingest.ts';
import { openDatabase } from '../server/storage/db.ts';
import { IndexRepo } from '../server/storage/index-repo.ts';
import { JobRepo } from '../server/storage/job-repo.ts';
import { JobRuns } from '../server/storage/job-runs.ts';
import { VectorStore } from '../server/storage/vector-store.ts';
import { tempDir } from './lib/server-child.ts';

const { values } = parseArgs({ options: { items: { type: 'string', default: '20000' }, resyncs: { type: 'string', default: '5' } } });
const itemCount = Number(values.items);
const resyncs = Number(values.resyncs);
const MODEL = 'bench-model';

const dataDir = tempDir();
const db = openDatabase(dataDir);
const repo = new JobRepo(db);
const runs = new JobRuns(db);
const index = new IndexRepo(db, new VectorStore(db, MODEL, 4));

/** A product as a shop sends it: about 1,200 characters of description. */
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

function push(version: number): void {
  for (let start = 0; start < itemCount; start += 1000) {
    const items = Array.from({ length: Math.min(1000, itemCount - start) }, (_, k) => product(start + k, version));
    repo.enqueue([{ items, apiKeyId: 'bench-key' }], { now: Date.now(), maxAttempts: 3, activeModelId: MODEL });
  }
}

/** Claims every queued job and finishes it as the pipeline would, writing the item's row. */
function processAll(): void {
  for (let jobs = runs.claim(500, Date.now()); jobs.length > 0; jobs = runs.claim(500, Date.now())) {
    db.transaction(() => {
      for (const job of jobs) {
        const data = JSON.parse(job.data) as IngestItem['data'];
        index.writeItem(
          {
            knowledgeBaseId: job.knowledge_base_id, integrationId: job.integration_id, externalId: job.external_id,
            sourceType: job.source_type, title: data.title ?? '', content: data.content ?? '', text: data.content ?? '',
            url: data.url ?? null, sourceData: null, contentHash: job.content_hash, seq: job.seq, embedderId: MODEL, chunks: [],
          },
          Date.now(),
        );
        runs.finish(job.id, 'succeeded', Date.now());
      }
    })();
  }
}

push(1);
processAll();
for (let r = 0; r < resyncs; r++) push(1);
push(2);
processAll();

const jobs = (db.prepare('SELECT count(*) AS n FROM jobs').get() as { n: number }).n;
const trees = db
  .prepare(
    `SELECT name, sum(pgsize) AS bytes, sum(payload) AS payload FROM dbstat
     WHERE name = 'jobs' OR name IN (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'jobs')
     GROUP BY name ORDER BY bytes DESC`,
  )
  .all() as Array<{ name: string; bytes: number; payload: number }>;
const total = trees.reduce((sum, tree) => sum + tree.bytes, 0);
console.log(
  JSON.stringify(
    {
      when: new Date().toISOString(),
      items: itemCount,
      pushesPerItem: resyncs + 2,
      jobs,
      bytesPerJob: Math.round(total / jobs),
      rowBytesPerJob: Math.round(trees.find((tree) => tree.name === 'jobs')!.payload / jobs),
      bytesPerJobByTree: Object.fromEntries(trees.map((tree) => [tree.name, Math.round(tree.bytes / jobs)])),
    },
    null,
    2,
  ),
);
db.close();
fs.rmSync(dataDir, { recursive: true, force: true });
