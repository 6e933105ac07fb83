/**
 * How the processing of one item grows with its size: items of 20,000, 60,000 and 100,000
 * characters, of ordinary prose and of words without a sentence end, each run alone through the
 * pipeline's own batch (server/pipeline/process-batch.ts: normalize → chunk → embed → index) on a
 * real database, timed by stage. Every step but the model should grow linearly with the text, and
 * the model with the number of chunks.
 * Usage: node --import tsx bench/item-size-scaling.ts [--embedder use-lite|none] [--sizes 20000,60000,100000]
 *   --embedder none: a stand-in that returns fixed vectors at once, so the rest of the work shows.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { IngestItem } from '../common/contract/ingest.ts';
import type { Embedder } from '../server/embedders/embedder.ts';
import { createEmbedder } from '../server/embedders/index.ts';
import { processBatch } from '../server/pipeline/process-batch.ts';
import { openDatabase } from '../server/storage/db.ts';
import { IndexRepo } from '../server/storage/index-repo.ts';
import { prepareEnqueue } from '../server/storage/jobs/index.ts';
import { JobRuns } from '../server/storage/jobs/job-runs.ts';
import { VectorStore } from '../server/storage/vector-store.ts';
import { tempDir } from './lib/server-child.ts';
import { prepareItemCommit } from '../server/storage/index-commits.ts';

const { values } = parseArgs({
  options: { embedder: { type: 'string', default: 'use-lite' }, sizes: { type: 'string', default: '20000,60000,100000' } },
});

const WORDS = ['bread', 'flour', 'oven', 'morning', 'customer', 'delivery', 'warranty', 'shop', 'baker', 'crust', 'sourdough', 'rye', 'butter', 'season', 'order'];

/** Sentences of 10–12 words, six to a paragraph. */
function prose(characters: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < characters; i++) {
    const sentence = `The ${WORDS[i % 15]} of the ${WORDS[(i * 7) % 15]} is ready at ${i} in the ${WORDS[(i * 3) % 15]} near ${WORDS[(i * 11) % 15]}. ${i % 6 === 5 ? '\n\n' : ''}`;
    parts.push(sentence);
    length += sentence.length;
  }
  return parts.join('').slice(0, characters);
}

/** Words and spaces only: one sentence as long as the item. */
function noSentenceEnd(characters: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < characters; i++) {
    const word = `${WORDS[(i * 5) % 15]}${i % 97} `;
    parts.push(word);
    length += word.length;
  }
  return parts.join('').slice(0, characters).trim();
}

/** A stand-in model: same token counter and window as USE-lite, fixed vectors, no work. */
function instantEmbedder(real: Pick<Embedder, 'countTokens' | 'maxTokens'>): Embedder {
  return {
    id: 'instant',
    dimension: 8,
    maxTokens: real.maxTokens,
    countTokens: real.countTokens,
    embed: async (texts) => texts.map(() => Float32Array.from([1, 0, 0, 0, 0, 0, 0, 0])),
    close: async () => {},
  };
}

const model = await createEmbedder({ kind: 'use-lite' });
const embedder = values.embedder === 'none' ? instantEmbedder(model) : model;
let embedMs = 0;
const timed: Embedder = {
  ...embedder,
  embed: async (texts) => {
    const started = performance.now();
    try {
      return await embedder.embed(texts);
    } finally {
      embedMs += performance.now() - started;
    }
  },
};

const rows: Array<Record<string, string | number>> = [];
for (const [kind, make] of [
  ['prose', prose],
  ['no sentence end', noSentenceEnd],
] as const) {
  for (const characters of values.sizes.split(',').map(Number)) {
    const db = openDatabase(tempDir());
    const runs = new JobRuns(db);
    const index = new IndexRepo(db, new VectorStore(db, timed.id, timed.dimension));
    const item = { integrationId: 'bench', knowledgeBaseId: 'kb-bench', sourceType: 'ARTICLE', externalId: `${kind}-${characters}`, data: { title: 'A long page', content: make(characters) } };
    prepareEnqueue(db)([{ items: [item as IngestItem], apiKeyId: null }], { now: Date.now(), maxAttempts: 5, activeModelId: null });
    const jobs = runs.claim(1, Date.now());
    embedMs = 0;
    const started = performance.now();
    const report = await processBatch(jobs, { db, runs, index, commitItem: prepareItemCommit(db, index, runs), embedder: timed, overlapTokens: 32, clock: Date.now });
    const totalMs = performance.now() - started;
    const chunks = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    db.close();
    if (report.succeeded !== 1) throw new Error(`${kind} ${characters}: ${JSON.stringify(report)}`);
    rows.push({ kind, characters, chunks, totalMs: Math.round(totalMs), embedMs: Math.round(embedMs), otherMs: Math.round(totalMs - embedMs) });
    process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
  }
}
await model.close();
console.log(JSON.stringify({ when: new Date().toISOString(), machine: `${os.cpus().length} cores, node ${process.version}, load ${os.loadavg()[0]!.toFixed(1)} (shared)`, embedder: values.embedder, rows }, null, 2));
