/**
 * The real server, started in-process with its pipeline, holding SQuAD and StackFAQ indexed
 * through POST /ingest/bulk: what the answer evals ask their questions of.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Config, loadConfig } from '../../server/config.ts';
import { startServer } from '../../server/main.ts';
import { benchEnv } from '../lib/server-child.ts';
import { type Dataset, loadDataset } from '../retrieval/datasets.ts';
import type { ApiTarget } from '../retrieval/http-client.ts';
import { type IngestStats, ingestDataset } from '../retrieval/ingest-dataset.ts';
import { holdoutDataset } from './holdout-sets.ts';

export type IndexedSets = {
  config: Config;
  server: Awaited<ReturnType<typeof startServer>>;
  target: ApiTarget;
  squad: Dataset;
  stackfaq: Dataset;
  /** Every other paragraph (thread) of each set: holdout-sets.ts. */
  squadHoldout: Dataset;
  stackfaqHoldout: Dataset;
  ingest: Record<'squad' | 'stackfaq' | 'squadHoldout' | 'stackfaqHoldout', IngestStats>;
  /** Stops the server and removes the data folder unless it was given or is to be kept. */
  close(): Promise<void>;
};

/** `dataDir` reuses a folder that already holds the indexed sets; without it a temporary one is made. */
export async function startIndexedSets(options: { dataDir?: string; keep: boolean; log: (line: string) => void }): Promise<IndexedSets> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = ownDataDir ? fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-answers-')) : path.resolve(options.dataDir!);
  const config = loadConfig({ ...process.env, ...benchEnv(dataDir) }, { workers: 2 });
  const server = await startServer(config);
  // The environment decides, whatever a reused data folder stored: extractive unless LOCALIQ_LLM_* name an endpoint.
  server.services.llmSettings.set(config.llm);
  const target = { url: server.url, key: server.services.keys.create({ name: 'answer eval', scopes: ['iq:import', 'iq:read'] }).value };
  const close = async () => {
    await server.stop();
    if (ownDataDir && !options.keep) fs.rmSync(dataDir, { recursive: true, force: true });
    else options.log(`data folder kept: ${dataDir} (reuse with --data-dir)`);
  };
  try {
    const squad = loadDataset('squad');
    const stackfaq = loadDataset('stackfaq');
    const squadHoldout = holdoutDataset(squad);
    const stackfaqHoldout = holdoutDataset(stackfaq);
    const ingest = {
      squad: await ingestDataset(target, squad, options.log),
      stackfaq: await ingestDataset(target, stackfaq, options.log),
      squadHoldout: await ingestDataset(target, squadHoldout, options.log),
      stackfaqHoldout: await ingestDataset(target, stackfaqHoldout, options.log),
    };
    return { config, server, target, squad, stackfaq, squadHoldout, stackfaqHoldout, ingest, close };
  } catch (error) {
    await close();
    throw error;
  }
}
