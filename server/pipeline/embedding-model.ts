import type { Db } from '../storage/db.ts';
import type { JobRepo } from '../storage/job-repo.ts';
import type { SettingsRepo } from '../storage/settings-repo.ts';
import { VectorStore } from '../storage/vector-store.ts';
import type { EmbedderConfig } from './embedders/index.ts';
import { QueryEmbedder } from './query-embedder.ts';

const ACTIVE_SETTING = 'active_embedder';
type ActiveModel = { id: string; dimension: number };

/**
 * Which embedding model the index uses. Vectors of each model live in their own table; when the
 * configured model changes, every item is queued again (at low priority) to be re-embedded in the
 * background, and semantic search switches to the new model's table.
 */
export class EmbeddingModel {
  private active: (ActiveModel & { vectors: VectorStore }) | null = null;
  readonly queries: QueryEmbedder;

  constructor(
    private readonly db: Db,
    private readonly settings: SettingsRepo,
    private readonly jobs: JobRepo,
    config: EmbedderConfig,
    private readonly maxAttempts: number,
  ) {
    this.queries = new QueryEmbedder(config);
    const recorded = settings.get(ACTIVE_SETTING);
    if (recorded) this.use(JSON.parse(recorded) as ActiveModel);
  }

  /** The model the workers loaded. Returns how many items were queued for re-embedding. */
  activate(id: string, dimension: number): number {
    if (this.active?.id === id && this.active.dimension === dimension) return 0;
    const previous = this.active;
    let requeued = 0;
    this.db.transaction(() => {
      this.settings.set(ACTIVE_SETTING, JSON.stringify({ id, dimension }));
      if (previous) requeued = this.jobs.requeueAllItems(Date.now(), this.maxAttempts);
    })();
    this.use({ id, dimension });
    return requeued;
  }

  vectors(): VectorStore | null {
    return this.active?.vectors ?? null;
  }

  modelId(): string | null {
    return this.active?.id ?? null;
  }

  private use(model: ActiveModel): void {
    this.active = { ...model, vectors: new VectorStore(this.db, model.id, model.dimension) };
  }
}
