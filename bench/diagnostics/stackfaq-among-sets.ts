/**
 * StackFAQ's retrieval figures as `bench/retrieval-eval.ts` measures them when SciFact and SQuAD
 * share its data folder (as in a run over every set), for any checkout, without an hour of
 * embedding: keyword BM25's statistics (how many rows hold a word, the average row length) are
 * those of the whole keyword table, every knowledge base together, so StackFAQ's keyword and
 * hybrid figures depend on what else the folder holds.
 *
 * Steps, each with the code of the checkout at `--root` (an earlier version: `git worktree add
 * --detach DIR <commit>` and a link to this `node_modules`):
 *   1. its server makes the SciFact and SQuAD knowledge bases (one item of each pushed and indexed);
 *   2. the rest of their items are chunked by its chunker and written by its storage code with
 *      random vectors (`bench/lib/seed-eval-index.ts`; their keyword rows are exact, their vectors
 *      mean nothing, and StackFAQ's semantic search reads only its own knowledge base's vectors);
 *   3. its own `bench/retrieval-eval.ts --datasets stackfaq --data-dir DIR` ingests StackFAQ
 *      through the real pipeline and model and prints keyword, semantic and hybrid R@1/R@5.
 *
 * Usage: LOCALIQ_EVAL_DIR=/work/shared/eval node --import tsx bench/diagnostics/stackfaq-among-sets.ts
 *          [--root DIR] [--sets scifact,squad] [--data-dir DIR]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { IngestItem } from '../../common/contract/ingest.ts';
import { benchEnv } from '../lib/server-child.ts';
import { type SeedItem, seedDataFolder } from '../lib/seed-eval-index.ts';
import { type DatasetName, loadDataset } from '../retrieval/datasets.ts';
import { ingestBulk, knowledgeBase } from '../retrieval/http-client.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: process.cwd() },
    sets: { type: 'string', default: 'scifact,squad' },
    'data-dir': { type: 'string' },
  },
});
const root = path.resolve(values.root);
const dataDir = values['data-dir'] ? path.resolve(values['data-dir']) : fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-among-'));
const log = (line: string) => process.stderr.write(`[stackfaq-among-sets] ${line}\n`);
const load = (file: string) => import(path.join(root, file));
const exists = (file: string) => fs.existsSync(path.join(root, file));

const others = values.sets.split(',').map((name) => loadDataset(name.trim() as DatasetName));
log(`root ${root}, data folder ${dataDir}`);

// 1. The knowledge bases, made by the checkout's own server from one pushed item each.
{
  const [{ loadConfig }, { startServer }] = await Promise.all([load('server/config.ts'), load('server/main.ts')]);
  const server = await startServer(loadConfig(benchEnv(dataDir), { workers: 1 }));
  try {
    const target = { url: server.url, key: server.services.keys.create({ name: 'among sets', scopes: ['iq:import', 'iq:read'] }).value };
    for (const set of others) await ingestBulk(target, set.items.slice(0, 1));
    for (const set of others) {
      const deadline = Date.now() + 600_000;
      for (;;) {
        const kb = await knowledgeBase(target, set.knowledgeBaseId);
        if (kb && kb.itemCount === 1 && kb.pendingJobs === 0) break;
        if (Date.now() > deadline) throw new Error(`${set.name}: its first item was not indexed in 10 minutes`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await server.stop();
  }
}

// 2. The other items, chunked as the checkout's pipeline does and written by its storage code.
{
  const embedders = exists('server/embedders/index.ts') ? 'server/embedders/index.ts' : 'server/pipeline/embedders/index.ts';
  const [{ createEmbedder }, { chunkItem }, { normalizeItem }, { embedHash }] = await Promise.all([
    load(embedders),
    load('server/pipeline/chunk.ts'),
    load('server/pipeline/normalize.ts'),
    load('server/pipeline/process-batch.ts'),
  ]);
  const embedder = await createEmbedder({ kind: 'use-lite' });
  const items: SeedItem[] = [];
  try {
    for (const set of others) {
      for (const item of set.items.slice(1) as IngestItem[]) {
        const normalized = normalizeItem(item.sourceType, item.data);
        const chunks = chunkItem(normalized, { maxTokens: embedder.maxTokens, overlapTokens: 24, countTokens: embedder.countTokens });
        items.push({
          knowledgeBaseId: item.knowledgeBaseId,
          integrationId: item.integrationId,
          externalId: item.externalId,
          sourceType: item.sourceType,
          title: normalized.title,
          content: item.data.content ?? '',
          text: normalized.text,
          url: item.data.url ?? null,
          chunks: chunks.map((c: { index: number; text: string; tokenCount: number; embedText: string }) => ({
            position: c.index,
            text: c.text,
            tokenCount: c.tokenCount,
            embedHash: embedHash(c.embedText),
          })),
        });
      }
    }
  } finally {
    await embedder.close();
  }
  log(`seeding ${items.length} items, ${items.reduce((n, i) => n + i.chunks.length, 0)} chunks`);
  await seedDataFolder(root, dataDir, items);
}

// 3. StackFAQ through the checkout's own retrieval bench, on this data folder.
const out = path.join(dataDir, 'stackfaq.md');
const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/retrieval-eval.ts', '--datasets', 'stackfaq', '--data-dir', dataDir, '--out', out], {
  cwd: root,
  env: process.env,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
  maxBuffer: 64 * 2 ** 20,
});
if (run.status !== 0) throw new Error(`retrieval-eval exited with ${run.status}`);
const report = JSON.parse(run.stdout) as { datasets: { stackfaq: { ingest: { chunks: number }; modes: Array<{ mode: string; scores: Record<string, number> }> } } };
const stackfaq = report.datasets.stackfaq;
console.log(
  JSON.stringify({ root, dataDir, stackfaqChunks: stackfaq.ingest.chunks, modes: Object.fromEntries(stackfaq.modes.map((m) => [m.mode, m.scores])) }),
);
