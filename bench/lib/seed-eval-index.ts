/**
 * A data folder holding the eval sets' items already indexed, written straight through the index
 * repository of the checkout that will serve it (so its schema is that checkout's): the items
 * normalized and chunked exactly as the pipeline does (this checkout's chunker and the USE-lite
 * tokenizer), with random unit vectors instead of the model's. Embedding ~38,000 chunks takes
 * an hour or more on 2 shared cores; the in-memory indexes a server loads (postings, quantized
 * vectors) and the SQLite files weigh the same whatever the vectors mean.
 */
import path from 'node:path';
import type { IngestItem } from '../../common/contract/ingest.ts';
import { createEmbedder } from '../../server/embedders/index.ts';
import { embedHash } from '../../server/pipeline/process-batch.ts';
import { chunkItem } from '../../server/pipeline/chunk.ts';
import { normalizeItem } from '../../server/pipeline/normalize.ts';
import { benchEnv } from './server-child.ts';
import { DIMENSION, randomUnit } from './scale-index.ts';

export type SeedItem = {
  knowledgeBaseId: string;
  integrationId: string;
  externalId: string;
  sourceType: string;
  title: string;
  content: string;
  text: string;
  url: string | null;
  chunks: { position: number; text: string; tokenCount: number; embedHash: string }[];
};

/** Normalizes and chunks items as the pipeline would (chunk overlap at its default, 24 tokens). */
export async function chunkForSeeding(items: IngestItem[]): Promise<SeedItem[]> {
  const embedder = await createEmbedder({ kind: 'use-lite' });
  try {
    return items.map((item) => {
      const normalized = normalizeItem(item.sourceType, item.data);
      const chunks = chunkItem(normalized, { maxTokens: embedder.maxTokens, overlapTokens: 24, countTokens: embedder.countTokens });
      return {
        knowledgeBaseId: item.knowledgeBaseId,
        integrationId: item.integrationId,
        externalId: item.externalId,
        sourceType: item.sourceType,
        title: normalized.title,
        content: item.data.content ?? '',
        text: normalized.text,
        url: item.data.url ?? null,
        chunks: chunks.map((c) => ({ position: c.index, text: c.text, tokenCount: c.tokenCount, embedHash: embedHash(c.embedText) })),
      };
    });
  } finally {
    await embedder.close();
  }
}

/**
 * Writes the items into `dataDir` with the storage code of the checkout at `root` (its server must
 * not be running). The knowledge bases must exist already (one item pushed to each through the
 * server makes them, whatever the version).
 */
export async function seedDataFolder(root: string, dataDir: string, items: SeedItem[]): Promise<void> {
  const load = (file: string) => import(path.join(root, file));
  const [{ loadConfig }, { openServices }, { IndexRepo }, { VectorStore }] = await Promise.all([
    load('server/config.ts'),
    load('server/services.ts'),
    load('server/storage/index-repo.ts'),
    load('server/storage/vector-store.ts'),
  ]);
  const services = await openServices(loadConfig(benchEnv(dataDir)));
  try {
    services.embedding.activate('use-lite', DIMENSION);
    const index = new IndexRepo(services.db, new VectorStore(services.db, 'use-lite', DIMENSION));
    const now = Date.now();
    for (let start = 0; start < items.length; start += 1000) {
      services.db.transaction(() => {
        items.slice(start, start + 1000).forEach((item, i) => {
          index.writeItem(
            {
              ...item,
              sourceData: null,
              contentHash: `seed-${item.externalId}`,
              seq: start + i + 1,
              embedderId: 'use-lite',
              chunks: item.chunks.map((c) => ({ ...c, vector: randomUnit() })),
            },
            now,
          );
        });
      })();
    }
  } finally {
    services.close();
  }
}
