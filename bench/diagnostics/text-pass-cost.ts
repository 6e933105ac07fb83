/**
 * What the text phase costs per item, alone on one thread: N shop products pushed through the real
 * queue into a real data folder, then the text pass runs until none waits; prints items/s and the
 * share of each step (prepare: normalise and chunk; write: the rows, chunks and keyword rows).
 * Profile it with `node --cpu-prof --import tsx bench/diagnostics/text-pass-cost.ts`.
 *
 * Usage: node --import tsx bench/diagnostics/text-pass-cost.ts [--items 2000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { IngestItem } from '../../common/contract/ingest.ts';
import { loadConfig } from '../../server/config.ts';
import { createTokenCounter } from '../../server/embedders/token-counter.ts';
import { runTextPass } from '../../server/pipeline/text-pass.ts';
import { openServices } from '../../server/services.ts';
import { IndexRepo } from '../../server/storage/index-repo.ts';
import { prepareTextPhase } from '../../server/storage/jobs/text-phase.ts';
import { VectorStore } from '../../server/storage/vector-store.ts';
import { loaf } from '../lib/loaves.ts';
import { prepareTextCommit } from '../../server/storage/index-commits.ts';

const { values } = parseArgs({ options: { items: { type: 'string', default: '2000' } } });
const count = Number(values.items);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-text-pass-'));
const config = loadConfig({ LOCALIQ_DATA_DIR: dataDir, LOCALIQ_SECRET_STORE: 'file', LOCALIQ_LOG_LEVEL: 'silent' });
const services = await openServices(config, { jobWriter: 'in-process' });
try {
  const counter = await createTokenCounter(config.embedder);
  services.embedding.activate(counter.id, 512);
  for (let start = 0; start < count; start += 100) {
    const items = Array.from({ length: Math.min(100, count - start) }, (_, k) => loaf(start + k, 'shop', { mark: null })) as IngestItem[];
    await services.queue.push(items, null);
  }
  const db = services.db;
  const index = new IndexRepo(db, new VectorStore(db, counter.id, 512));
  const phase = prepareTextPhase(db);
  const deps = { index, phase, commitTexts: prepareTextCommit(db, index, phase), embedder: counter, overlapTokens: config.overlapTokens, clock: Date.now };
  const started = performance.now();
  while (runTextPass(deps, 1_000));
  const ms = performance.now() - started;
  const written = (db.prepare("SELECT count(*) AS n FROM items WHERE indexing = 'text'").get() as { n: number }).n;
  console.log(JSON.stringify({ items: count, written, ms: Math.round(ms), msPerItem: Number((ms / written).toFixed(2)), itemsPerSecond: Math.round(written / (ms / 1000)) }));
} finally {
  services.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
