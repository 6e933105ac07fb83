import type { ChunkVector, ChunkVectorFeed } from '../storage/chunk-vector-feed.ts';
import { type Neighbour, QuantizedVectors } from './quantized-vectors.ts';

/** Vectors read per turn of the event loop while loading in the background (~30 ms of work). */
const LOAD_SLICE = 1_000;

/**
 * The active model's chunk vectors in memory, one QuantizedVectors per knowledge base, for
 * semantic search. Loaded from the vector table in the background (`load`, at start-up) or on first
 * use, then kept current before every search by replaying the chunk change log the pipeline's
 * transactions write (one indexed read when nothing changed), so a search sees exactly the
 * committed index, whichever process or thread wrote it. The feed reads on a connection of its own.
 */
export class VectorIndex {
  private partitions = new Map<string, QuantizedVectors>();
  private readonly typeCodes = new Map<string, number>();
  /** Position in the change log the partitions reflect; null until loaded. */
  private seq: number | null = null;
  private loading: ReturnType<ChunkVectorFeed['snapshot']> | null = null;

  constructor(
    private readonly feed: ChunkVectorFeed,
    readonly dimension: number,
  ) {}

  /** The k chunks of a knowledge base closest to a unit query, optionally of some source types only. */
  nearest(knowledgeBaseId: string, query: Float32Array, k: number, sourceTypes: string[] | null): Neighbour[] {
    this.refresh();
    const partition = this.partitions.get(knowledgeBaseId);
    if (!partition) return [];
    let types: Set<number> | null = null;
    if (sourceTypes) {
      types = new Set(sourceTypes.flatMap((t) => (this.typeCodes.has(t) ? [this.typeCodes.get(t)!] : [])));
      if (types.size === 0) return [];
    }
    return partition.nearest(query, k, types);
  }

  /** Cosine similarity to a unit query of each of these chunks the knowledge base holds. */
  similarities(knowledgeBaseId: string, chunkIds: number[], query: Float32Array): Map<number, number> {
    this.refresh();
    const partition = this.partitions.get(knowledgeBaseId);
    const similarities = new Map<number, number>();
    if (!partition) return similarities;
    for (const chunkId of chunkIds) {
      const similarity = partition.similarity(chunkId, query);
      if (similarity !== null) similarities.set(chunkId, similarity);
    }
    return similarities;
  }

  /** Chunks held, over all knowledge bases. */
  size(): number {
    this.refresh();
    let total = 0;
    for (const partition of this.partitions.values()) total += partition.count;
    return total;
  }

  /**
   * Loads the vectors a slice per turn of the event loop, so requests keep being answered; a
   * search that comes first finishes the load at once.
   */
  async load(): Promise<void> {
    if (this.seq !== null || this.loading) return;
    this.begin();
    while (this.loading && !this.loadSlice(LOAD_SLICE)) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Starts a background load if none has run yet, else applies what was committed since. */
  follow(): void {
    if (this.seq !== null) this.refresh();
    else if (!this.loading) void this.load();
  }

  /** Stops a background load (the connection is about to close). */
  stop(): void {
    this.loading?.close();
    this.loading = null;
  }

  private begin(): void {
    this.partitions = new Map();
    this.loading = this.feed.snapshot();
  }

  /** Reads up to `count` vectors of the load in progress; true when it is complete. */
  private loadSlice(count: number): boolean {
    const loading = this.loading!;
    for (let read = 0; read < count; read++) {
      const next = loading.chunks.next();
      if (next.done) {
        loading.close();
        this.loading = null;
        this.seq = loading.seq;
        return true;
      }
      this.put(next.value);
    }
    return false;
  }

  private refresh(): void {
    if (this.seq === null) {
      if (!this.loading) this.begin();
      this.loadSlice(Infinity);
    }
    const changes = this.feed.changesSince(this.seq!);
    if (changes === null) {
      this.seq = null;
      return this.refresh();
    }
    for (const change of changes) {
      // Chunk ids can be reused once freed: drop whatever the id held, then add what it holds now.
      for (const partition of this.partitions.values()) partition.remove(change.chunkId);
      if (change.current) this.put(change.current);
      this.seq = change.seq;
    }
  }

  private put(chunk: ChunkVector): void {
    let partition = this.partitions.get(chunk.knowledgeBaseId);
    if (!partition) {
      partition = new QuantizedVectors(this.dimension);
      this.partitions.set(chunk.knowledgeBaseId, partition);
    }
    partition.put(chunk.chunkId, chunk.itemId, this.typeCode(chunk.sourceType), chunk.vector);
  }

  private typeCode(sourceType: string): number {
    let code = this.typeCodes.get(sourceType);
    if (code === undefined) {
      code = this.typeCodes.size;
      this.typeCodes.set(sourceType, code);
    }
    return code;
  }
}
