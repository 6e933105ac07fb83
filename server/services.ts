import type { Config } from './config.ts';
import { ApiKeyService } from './domain/api-key-service.ts';
import { JobQueue } from './domain/job-queue.ts';
import { ThroughputMeter } from './domain/throughput.ts';
import { EmbeddingModel } from './pipeline/embedding-model.ts';
import { SearchService } from './retrieval/search.ts';
import { ItemReadRepo } from './storage/item-read-repo.ts';
import { SearchRepo } from './storage/search-repo.ts';
import { loadServerSecret, type SecretStoreKind } from './secrets/server-secret.ts';
import { ApiKeyRepo } from './storage/api-key-repo.ts';
import { type Db, openDatabase } from './storage/db.ts';
import { ItemRepo } from './storage/item-repo.ts';
import { JobRepo } from './storage/job-repo.ts';
import { SettingsRepo } from './storage/settings-repo.ts';

/** Everything that works on the data folder, wired once; the server and the CLI share it. */
export type Services = {
  db: Db;
  secretStore: SecretStoreKind;
  keys: ApiKeyService;
  queue: JobQueue;
  jobs: JobRepo;
  items: ItemRepo;
  throughput: ThroughputMeter;
  embedding: EmbeddingModel;
  reader: ItemReadRepo;
  search: SearchService;
  close(): void;
};

export async function openServices(
  config: Pick<Config, 'dataDir' | 'secretStore' | 'maxAttempts' | 'embedder'>,
): Promise<Services> {
  const db = openDatabase(config.dataDir);
  try {
    const settings = new SettingsRepo(db);
    const secret = await loadServerSecret(config.dataDir, config.secretStore, settings);
    const jobs = new JobRepo(db);
    const embedding = new EmbeddingModel(db, settings, jobs, config.embedder, config.maxAttempts);
    const throughput = new ThroughputMeter();
    return {
      db,
      secretStore: secret.store,
      keys: new ApiKeyService(new ApiKeyRepo(db), secret.secret),
      queue: new JobQueue(jobs, throughput, config.maxAttempts, () => embedding.modelId()),
      jobs,
      items: new ItemRepo(db),
      throughput,
      embedding,
      reader: new ItemReadRepo(db),
      search: new SearchService(new SearchRepo(db), embedding),
      close: () => {
        void embedding.queries.close();
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
