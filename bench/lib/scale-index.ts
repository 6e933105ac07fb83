/**
 * A large search index for latency benchmarks, written straight through the index repository:
 * SciFact abstracts cut into chunks of two sentences, with random unit vectors, because embedding
 * 100,000 chunks with the default model would take over an hour here. BM25 and the vector scans
 * cost the same whatever the vectors mean, so timings hold; rankings do not (search-alternatives.ts
 * measures the vector search's agreement on real vectors).
 */
import path from 'node:path';
import { loadConfig } from '../../server/config.ts';
import { openServices, type Services } from '../../server/services.ts';
import { IndexRepo } from '../../server/storage/index-repo.ts';
import { VectorStore } from '../../server/storage/vector-store.ts';
import { benchEnv, EVAL_DIR, readJsonl, tempDir } from './server-child.ts';

export const SCALE_KB = 'kb-scale';
export const DIMENSION = 512;
const CHUNKS_PER_ITEM = 4;

export function randomUnit(): Float32Array {
  const v = Float32Array.from({ length: DIMENSION }, () => Math.random() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

export async function buildScaleIndex(chunkCount: number): Promise<{ services: Services; store: VectorStore; buildSeconds: number }> {
  const docs = readJsonl<{ title: string; text: string }>(path.join(EVAL_DIR, 'scifact/corpus.jsonl'));
  const services = await openServices(loadConfig(benchEnv(tempDir())));
  services.embedding.activate('use-lite', DIMENSION);
  const store = new VectorStore(services.db, 'use-lite', DIMENSION);
  const index = new IndexRepo(services.db, store);
  const items = chunkCount / CHUNKS_PER_ITEM;
  const started = performance.now();
  for (let start = 0; start < items; start += 1000) {
    services.db.transaction(() => {
      for (let i = start; i < Math.min(items, start + 1000); i++) {
        const doc = docs[i % docs.length]!;
        const sentences = doc.text.split(/(?<=\.)\s+/);
        const chunks = Array.from({ length: CHUNKS_PER_ITEM }, (_, c) => ({
          position: c,
          text: sentences.slice(c * 2, c * 2 + 2).join(' ') || doc.title,
          tokenCount: 60,
          embedHash: `${i}-${c}`,
          vector: randomUnit(),
        }));
        index.writeItem(
          {
            knowledgeBaseId: SCALE_KB,
            integrationId: 'bench',
            externalId: `doc-${i}`,
            sourceType: 'ARTICLE',
            title: doc.title,
            content: doc.text,
            text: doc.text,
            url: null,
            sourceData: null,
            contentHash: `h-${i}`,
            seq: i + 1,
            embedderId: 'use-lite',
            chunks,
          },
          Date.now(),
        );
      }
    })();
  }
  return { services, store, buildSeconds: (performance.now() - started) / 1000 };
}
