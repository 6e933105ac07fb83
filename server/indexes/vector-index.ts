import type { ChunkVector, ChunkVectorFeed } from '../storage/chunk-vector-feed.ts';
import { FollowedIndex } from './followed-index.ts';
import { type Neighbour, QuantizedVectors } from './quantized-vectors.ts';

/** Vectors read (or changes applied) between two looks at the clock: about 1 ms of work. */
const LOAD_STEP = 32;

/**
 * The active model's chunk vectors in memory, one QuantizedVectors per knowledge base, for
 * semantic search, following the vector table through the chunk change log (followed-index.ts).
 * The feed reads on a connection of its own.
 */
export class VectorIndex extends FollowedIndex<ChunkVector> {
  private partitions = new Map<string, QuantizedVectors>();
  private readonly typeCodes = new Map<string, number>();

  constructor(
    feed: ChunkVectorFeed,
    readonly dimension: number,
  ) {
    super(feed, LOAD_STEP);
  }

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

  protected clear(): void {
    this.partitions = new Map();
  }

  protected remove(chunkId: number): void {
    for (const partition of this.partitions.values()) partition.remove(chunkId);
  }

  protected put(chunk: ChunkVector): void {
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
