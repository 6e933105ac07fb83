/** FTS5's BM25 parameters (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;
/** FTS5 gives a word in more than half of the rows this IDF instead of a negative one. */
const MIN_IDF = 1e-6;
/** Dead postings tolerated, as a share of the live ones, before they are swept out. */
const DEAD_SHARE = 0.5;

/** One row of a keyword table as BM25 sees it. */
export type KeywordRow = {
  id: number;
  /** Filter codes (knowledge base, source type) the caller assigns. */
  group: number;
  kind: number;
  /** Tokens in all columns: BM25's document length. */
  length: number;
  /** The row's terms and, for each, its count in each column times the column's weight, summed. */
  termIds: number[];
  weights: number[];
};

type Postings = { slots: Int32Array; weights: Float32Array; size: number };

/**
 * An inverted index of a keyword table computing FTS5's bm25() exactly (same formula, same order
 * of additions, statistics over the whole table) for an OR of terms, term at a time over plain
 * arrays instead of one auxiliary-function call per matching row, which is where FTS5 spends its
 * time when a query's common words match half of the table.
 *
 * The statistics are those of the live rows. A contentless FTS5 table with deletions keeps deleted
 * rows in the row and token counts its bm25() uses, so FTS5's own figure drifts as items are
 * replaced; this one equals what FTS5 computes on a table holding only the live rows (both shown
 * in test/keyword-index.test.ts).
 *
 * Rows live in slots; replacing or removing a row kills its slot and its postings are skipped
 * until a sweep drops them (when dead postings pass half of the live ones). Terms are ids
 * (fts-tokenizer.ts).
 */
export class Bm25Postings {
  private capacity = 1024;
  private slotRow = new Int32Array(this.capacity);
  private slotGroup = new Int32Array(this.capacity);
  private slotKind = new Int32Array(this.capacity);
  private slotLength = new Int32Array(this.capacity);
  private slotPostings = new Int32Array(this.capacity);
  private alive = new Uint8Array(this.capacity);
  private slots = 0;
  private readonly rowSlot = new Map<number, number>();
  /** By term id. */
  private readonly terms: Array<Postings | undefined> = [];
  private liveRows = 0;
  private totalLength = 0;
  private livePostings = 0;
  private deadPostings = 0;
  /** Scratch for one search: score by slot (0 = not matched), and the slots matched. */
  private scores = new Float64Array(this.capacity);

  get rows(): number {
    return this.liveRows;
  }

  put(row: KeywordRow): void {
    this.remove(row.id);
    if (this.slots === this.capacity) this.grow();
    const slot = this.slots++;
    this.slotRow[slot] = row.id;
    this.slotGroup[slot] = row.group;
    this.slotKind[slot] = row.kind;
    this.slotLength[slot] = row.length;
    this.alive[slot] = 1;
    let postings = 0;
    row.termIds.forEach((term, i) => {
      const weight = row.weights[i]!;
      if (weight <= 0) return;
      append((this.terms[term] ??= { slots: new Int32Array(4), weights: new Float32Array(4), size: 0 }), slot, weight);
      postings++;
    });
    this.slotPostings[slot] = postings;
    this.rowSlot.set(row.id, slot);
    this.liveRows++;
    this.totalLength += row.length;
    this.livePostings += postings;
  }

  remove(id: number): void {
    const slot = this.rowSlot.get(id);
    if (slot === undefined) return;
    this.rowSlot.delete(id);
    this.alive[slot] = 0;
    this.liveRows--;
    this.totalLength -= this.slotLength[slot]!;
    this.livePostings -= this.slotPostings[slot]!;
    this.deadPostings += this.slotPostings[slot]!;
    if (this.deadPostings > DEAD_SHARE * this.livePostings + 10_000) this.sweep();
  }

  /**
   * The `limit` best rows of a group (and of some kinds, when given) for an OR of terms, best
   * first, ties by id; each term counts as often as it is given, as FTS5 counts repeated phrases.
   */
  search(terms: number[], group: number, kinds: Set<number> | null, limit: number): Array<{ id: number; score: number }> {
    if (this.liveRows === 0 || limit <= 0) return [];
    const { scores, alive, slotGroup, slotKind, slotLength } = this;
    const averageLength = this.totalLength / this.liveRows;
    const matched: number[] = [];
    for (const term of terms) {
      const postings = this.terms[term];
      if (!postings) continue;
      const { slots, weights, size } = postings;
      let documents = 0;
      for (let i = 0; i < size; i++) documents += alive[slots[i]!]!;
      let idf = Math.log((this.liveRows - documents + 0.5) / (documents + 0.5));
      if (idf <= 0) idf = MIN_IDF;
      for (let i = 0; i < size; i++) {
        const slot = slots[i]!;
        if (!alive[slot] || slotGroup[slot] !== group || (kinds !== null && !kinds.has(slotKind[slot]!))) continue;
        const weight = weights[i]!;
        if (scores[slot] === 0) matched.push(slot);
        scores[slot]! += idf * ((weight * (K1 + 1.0)) / (weight + K1 * (1 - B + (B * slotLength[slot]!) / averageLength)));
      }
    }
    const best = topSlots(matched, scores, this.slotRow, limit);
    const results = best.map((slot) => ({ id: this.slotRow[slot]!, score: scores[slot]! }));
    for (const slot of matched) scores[slot] = 0;
    return results;
  }

  private grow(): void {
    this.capacity *= 2;
    this.slotRow = resized(this.slotRow, this.capacity);
    this.slotGroup = resized(this.slotGroup, this.capacity);
    this.slotKind = resized(this.slotKind, this.capacity);
    this.slotLength = resized(this.slotLength, this.capacity);
    this.slotPostings = resized(this.slotPostings, this.capacity);
    this.alive = resized(this.alive, this.capacity);
    this.scores = resized(this.scores, this.capacity);
  }

  /** Renumbers the live slots densely and drops the dead postings and emptied terms. */
  private sweep(): void {
    const renumbered = new Int32Array(this.slots).fill(-1);
    let next = 0;
    for (let slot = 0; slot < this.slots; slot++) {
      if (!this.alive[slot]) continue;
      renumbered[slot] = next;
      this.slotRow[next] = this.slotRow[slot]!;
      this.slotGroup[next] = this.slotGroup[slot]!;
      this.slotKind[next] = this.slotKind[slot]!;
      this.slotLength[next] = this.slotLength[slot]!;
      this.slotPostings[next] = this.slotPostings[slot]!;
      this.rowSlot.set(this.slotRow[next]!, next);
      next++;
    }
    this.alive.fill(0);
    this.alive.fill(1, 0, next);
    this.slots = next;
    for (const postings of this.terms) {
      if (!postings) continue;
      let kept = 0;
      for (let i = 0; i < postings.size; i++) {
        const slot = renumbered[postings.slots[i]!]!;
        if (slot < 0) continue;
        postings.slots[kept] = slot;
        postings.weights[kept] = postings.weights[i]!;
        kept++;
      }
      postings.size = kept;
    }
    this.deadPostings = 0;
  }
}

function append(postings: Postings, slot: number, weight: number): void {
  if (postings.size === postings.slots.length) {
    postings.slots = resized(postings.slots, postings.size * 2);
    postings.weights = resized(postings.weights, postings.size * 2);
  }
  postings.slots[postings.size] = slot;
  postings.weights[postings.size] = weight;
  postings.size++;
}

function resized<T extends Int32Array | Float32Array | Float64Array | Uint8Array>(array: T, length: number): T {
  const copy = new (array.constructor as new (length: number) => T)(length);
  copy.set(array.subarray(0, Math.min(array.length, length)) as never);
  return copy;
}

/** The `limit` slots of highest score (ties: lower row id first), best first, via a min-heap. */
function topSlots(matched: number[], scores: Float64Array, slotRow: Int32Array, limit: number): number[] {
  // a ranks below b
  const below = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && slotRow[a]! > slotRow[b]!);
  const heap: number[] = [];
  const siftDown = (from: number) => {
    for (let i = from; ; ) {
      const left = 2 * i + 1;
      const right = left + 1;
      let lowest = i;
      if (left < heap.length && below(heap[left]!, heap[lowest]!)) lowest = left;
      if (right < heap.length && below(heap[right]!, heap[lowest]!)) lowest = right;
      if (lowest === i) return;
      [heap[i], heap[lowest]] = [heap[lowest]!, heap[i]!];
      i = lowest;
    }
  };
  for (const slot of matched) {
    if (heap.length < limit) {
      heap.push(slot);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!below(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (below(heap[0]!, slot)) {
      heap[0] = slot;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
}
