import { chunkVectorFeed } from '../storage/chunk-vector-feed.ts';
import { type Db, openReader } from '../storage/db.ts';
import type { JobRepo } from '../storage/jobs/job-repo.ts';
import type { SettingsRepo } from '../storage/settings-repo.ts';
import { VectorStore } from '../storage/vector-store.ts';
import { VectorIndex } from './vector-index.ts';

const ACTIVE_SETTING = 'active_embedder';
type ActiveModel = { id: string; dimension: number };

/**
 * Which embedding model the index uses, and its vectors: in their table (`vectors`, which the
 * pipeline writes) and in memory for search (`index`). Vectors of each model live in their own table; when the
 * configured model changes, every item is queued again (at low priority) to be re-embedded in the
 * background, and semantic search switches to the new model's table.
 */
export class EmbeddingModel {
  private active: (ActiveModel & { vectors: VectorStore; index: VectorIndex | null }) | null = null;
  /** The vector index's own read connection, opened with the first index. */
  private reader: Db | null = null;

  constructor(
    private readonly db: Db,
    private readonly settings: SettingsRepo,
    private readonly jobs: JobRepo,
    private readonly maxAttempts: number,
  ) {
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

  /**
   * The active model's vectors in memory for search (vector-index.ts); the server starts
   * loading them after it listens, otherwise the first search loads them.
   */
  index(): VectorIndex | null {
    const active = this.active;
    if (!active) return null;
    this.reader ??= openReader(this.db);
    active.index ??= new VectorIndex(chunkVectorFeed(this.reader, active.vectors.table), active.dimension);
    return active.index;
  }

  close(): void {
    this.active?.index?.stop();
    this.reader?.close();
    this.reader = null;
  }

  modelId(): string | null {
    return this.active?.id ?? null;
  }

  private use(model: ActiveModel): void {
    this.active?.index?.stop();
    this.active = { ...model, vectors: new VectorStore(this.db, model.id, model.dimension), index: null };
  }
}
