/**
 * Chunk vectors of one knowledge base held in memory, quantized twice: one sign bit per dimension
 * for a Hamming-distance scan of every chunk, and int8 (with a per-vector scale) to rescore the
 * closest codes by cosine. Scanning 100,000 binary codes takes a few milliseconds where an exact
 * float scan in sqlite-vec took over 100 (docs/benchmarks.md); rescoring several times more
 * candidates than asked for keeps the results those of the exact search
 * (test/scale/server/indexes/vector-index.test.ts and bench/search-alternatives.ts measure the
 * agreement).
 */
export type Neighbour = { chunkId: number; itemId: number; similarity: number };

/**
 * Candidates rescored per result asked for, and at least this many. Sign bits of the default
 * model's vectors order neighbours only roughly; with 8 × k rescored, 96–98.6 % of the exact top k
 * are found on SciFact (bench/search-alternatives.ts prints the agreement).
 */
const RESCORE_FACTOR = 8;
const MIN_RESCORED = 256;

export class QuantizedVectors {
  private readonly words: number;
  private size = 0;
  private capacity = 0;
  private codes = new Uint32Array(0);
  private bytes = new Int8Array(0);
  private scales = new Float32Array(0);
  private chunkIds = new Float64Array(0);
  private itemIds = new Float64Array(0);
  private types = new Uint16Array(0);
  private readonly slots = new Map<number, number>();

  constructor(readonly dimension: number) {
    this.words = Math.ceil(dimension / 32);
  }

  get count(): number {
    return this.size;
  }

  /** Adds or replaces a chunk's vector; `type` is the caller's code for the item's source type. */
  put(chunkId: number, itemId: number, type: number, vector: Float32Array): void {
    let slot = this.slots.get(chunkId);
    if (slot === undefined) {
      if (this.size === this.capacity) this.grow();
      slot = this.size++;
      this.slots.set(chunkId, slot);
    }
    this.chunkIds[slot] = chunkId;
    this.itemIds[slot] = itemId;
    this.types[slot] = type;
    signBits(vector, this.codes, slot * this.words, this.words);
    let largest = 0;
    for (let d = 0; d < this.dimension; d++) largest = Math.max(largest, Math.abs(vector[d]!));
    const scale = largest > 0 ? largest / 127 : 1;
    const base = slot * this.dimension;
    for (let d = 0; d < this.dimension; d++) this.bytes[base + d] = Math.round(vector[d]! / scale);
    this.scales[slot] = scale;
  }

  remove(chunkId: number): void {
    const slot = this.slots.get(chunkId);
    if (slot === undefined) return;
    this.slots.delete(chunkId);
    const last = --this.size;
    if (slot !== last) {
      // The last vector moves into the freed slot, so the arrays stay dense for the scan.
      this.codes.copyWithin(slot * this.words, last * this.words, (last + 1) * this.words);
      this.bytes.copyWithin(slot * this.dimension, last * this.dimension, (last + 1) * this.dimension);
      this.scales[slot] = this.scales[last]!;
      this.chunkIds[slot] = this.chunkIds[last]!;
      this.itemIds[slot] = this.itemIds[last]!;
      this.types[slot] = this.types[last]!;
      this.slots.set(this.chunkIds[slot]!, slot);
    }
  }

  /** Cosine similarity (from the int8 copy) of one stored chunk to a unit query, or null. */
  similarity(chunkId: number, query: Float32Array): number | null {
    const slot = this.slots.get(chunkId);
    return slot === undefined ? null : this.rescore(slot, query);
  }

  /**
   * The k chunks most similar to a unit-length query, best first; `types` (codes) restricts the
   * source types when given.
   */
  nearest(query: Float32Array, k: number, types: ReadonlySet<number> | null = null): Neighbour[] {
    if (k <= 0 || this.size === 0) return [];
    const queryCode = new Uint32Array(this.words);
    signBits(query, queryCode, 0, this.words);
    const distances = new Uint16Array(this.size);
    hammingDistances(this.codes, queryCode, this.size, this.words, distances);
    const excluded = this.dimension + 1;
    if (types) for (let slot = 0; slot < this.size; slot++) if (!types.has(this.types[slot]!)) distances[slot] = excluded;
    const histogram = new Uint32Array(this.dimension + 2);
    for (let slot = 0; slot < this.size; slot++) histogram[distances[slot]!]!++;
    // The smallest Hamming radius that holds enough candidates, found from the histogram
    // instead of sorting every distance.
    const wanted = Math.max(k * RESCORE_FACTOR, MIN_RESCORED);
    let radius = 0;
    for (let seen = 0; radius <= this.dimension; radius++) {
      seen += histogram[radius]!;
      if (seen >= wanted) break;
    }
    radius = Math.min(radius, this.dimension);
    const scored: Neighbour[] = [];
    for (let slot = 0; slot < this.size; slot++) {
      if (distances[slot]! > radius) continue;
      scored.push({ chunkId: this.chunkIds[slot]!, itemId: this.itemIds[slot]!, similarity: this.rescore(slot, query) });
    }
    return scored.sort((a, b) => b.similarity - a.similarity || a.chunkId - b.chunkId).slice(0, k);
  }

  private rescore(slot: number, query: Float32Array): number {
    const bytes = this.bytes;
    const base = slot * this.dimension;
    const end = this.dimension - (this.dimension % 4);
    // Four running sums: V8 runs this faster than one chain of additions.
    let a = 0;
    let b = 0;
    let c = 0;
    let e = 0;
    let d = 0;
    for (; d < end; d += 4) {
      a += query[d]! * bytes[base + d]!;
      b += query[d + 1]! * bytes[base + d + 1]!;
      c += query[d + 2]! * bytes[base + d + 2]!;
      e += query[d + 3]! * bytes[base + d + 3]!;
    }
    for (; d < this.dimension; d++) a += query[d]! * bytes[base + d]!;
    return (a + b + c + e) * this.scales[slot]!;
  }

  private grow(): void {
    this.capacity = Math.max(64, this.capacity * 2);
    this.codes = resized(this.codes, new Uint32Array(this.capacity * this.words));
    this.bytes = resized(this.bytes, new Int8Array(this.capacity * this.dimension));
    this.scales = resized(this.scales, new Float32Array(this.capacity));
    this.chunkIds = resized(this.chunkIds, new Float64Array(this.capacity));
    this.itemIds = resized(this.itemIds, new Float64Array(this.capacity));
    this.types = resized(this.types, new Uint16Array(this.capacity));
  }
}

function resized<T extends Uint32Array | Int8Array | Float32Array | Float64Array | Uint16Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}

function signBits(vector: Float32Array, into: Uint32Array, offset: number, words: number): void {
  into.fill(0, offset, offset + words);
  for (let d = 0; d < vector.length; d++) if (vector[d]! > 0) into[offset + (d >> 5)]! |= 1 << (d & 31);
}

/**
 * Hamming distance of the query code to each of `count` codes. Bit counts of two words are summed
 * as 4-bit then 8-bit fields and folded once per group of words (each byte stays below 256),
 * which V8 runs faster than counting each word on its own.
 */
function hammingDistances(codes: Uint32Array, query: Uint32Array, count: number, words: number, into: Uint16Array): void {
  for (let slot = 0, base = 0; slot < count; slot++, base += words) {
    let total = 0;
    let bytes = 0;
    let pairs = 0;
    let w = 0;
    for (; w + 1 < words; w += 2) {
      let x = codes[base + w]! ^ query[w]!;
      let y = codes[base + w + 1]! ^ query[w + 1]!;
      x -= (x >>> 1) & 0x55555555;
      y -= (y >>> 1) & 0x55555555;
      x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
      y = (y & 0x33333333) + ((y >>> 2) & 0x33333333);
      x += y;
      bytes += (x & 0x0f0f0f0f) + ((x >>> 4) & 0x0f0f0f0f);
      // Each pair adds at most 16 to a byte: fold every 15 pairs, before one could overflow.
      if (++pairs === 15) {
        total += foldBytes(bytes);
        bytes = 0;
        pairs = 0;
      }
    }
    if (w < words) total += popcount(codes[base + w]! ^ query[w]!);
    into[slot] = total + foldBytes(bytes);
  }
}

function foldBytes(bytes: number): number {
  bytes = (bytes & 0x00ff00ff) + ((bytes >>> 8) & 0x00ff00ff);
  return (bytes & 0xffff) + (bytes >>> 16);
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
