/** FTS5's BM25 parameters (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;
/** FTS5 gives a word in more than half of the rows this IDF instead of a negative one. */
const MIN_IDF = 1e-6;
/**
 * Postings outside the packed arrays (new ones in the log) or dead inside them tolerated, as a share
 * of the live ones plus a floor, before everything is packed again. A pack reads every posting
 * twice, so its cost follows the index's size; the share keeps it to once per quarter of growth.
 */
const REPACK_SHARE = 0.25;
const REPACK_FLOOR = 10_000;
/** Room of a term's first block in the log; each next block has twice the room, up to the largest. */
const FIRST_BLOCK = 4;
const LARGEST_BLOCK = 4096;
/** Initial sizes of the log's arrays (postings, blocks), which grow by doubling. */
const FIRST_LOG_ROOM = 4096;
const FIRST_BLOCKS = 1024;

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

/**
 * A term of a query: the query word it stands for (`word`, counted once per row by all-terms-first
 * whatever number of its terms the row holds) and a weight on its BM25 share (1 as typed; below 1
 * for a vocabulary word standing in for a misspelt one, so exact matches rank first).
 */
export type QueryTerm =
  | {
      term: number;
      word: number;
      weight: number;
      /** A term whose IDF caps this one's when the table holds it: a synonym never weighs more than the word it stands for. */
      idfAtMost?: number;
    }
  /** Rows scored elsewhere (a phrase synonym, by FTS5's bm25()), their scores times the weight. */
  | { rows: ReadonlyArray<{ id: number; score: number }>; word: number; weight: number };

/**
 * An inverted index of a keyword table computing FTS5's bm25() exactly (same formula, same order
 * of additions, statistics over the whole table) for an OR of terms, term at a time over plain
 * arrays instead of one auxiliary-function call per matching row, which is where FTS5 spends its
 * time when a query's common words match half of the table.
 *
 * The statistics are those of the live rows. A contentless FTS5 table with deletions keeps deleted
 * rows in the row and token counts its bm25() uses, so FTS5's own figure drifts as items are
 * replaced; this one equals what FTS5 computes on a table holding only the live rows (both shown
 * in test/scale/server/indexes/keyword-index.test.ts).
 *
 * Rows live in slots; replacing or removing a row kills its slot and its postings are skipped.
 * Terms are ids (fts-tokenizer.ts). The postings are packed: every term's postings side by side in
 * two arrays, found by the term's offset. Growable arrays of each term's own would cost an object
 * and two buffers per term, up to twice the room the postings fill, and the freed copies of every
 * resize. New postings go to a log instead (a few large arrays, a chain of blocks per term) until
 * the log and the dead postings together pass a share of the live ones; then the live postings
 * are packed again and the live slots renumbered densely.
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
  /** Term t's packed postings are at [packedStart[t], packedStart[t + 1]) of these two arrays. */
  private packedStart = new Int32Array(1);
  private packedSlots = new Int32Array(0);
  private packedWeights = new Float32Array(0);
  /**
   * Postings since the last pack, by term, in blocks of two shared arrays, so a term's new postings
   * are read a block at a time, not a linked posting (and a likely cache miss) at a time.
   */
  private logSlots!: Int32Array;
  private logWeights!: Float32Array;
  private logRoomUsed!: number;
  private blockStart!: Int32Array;
  private blockRoom!: Int32Array;
  /** The same term's next block (-1: none). */
  private blockNext!: Int32Array;
  private blocks!: number;
  /** By term: its first and last block (-1: none), and the postings in its last block. */
  private firstBlock = new Int32Array(0);
  private lastBlock = new Int32Array(0);
  private lastBlockFill = new Int32Array(0);
  /** Postings in the log. */
  private logged!: number;
  /** Highest term id seen, plus one. */
  private terms = 0;
  private liveRows = 0;
  private totalLength = 0;
  private livePostings = 0;
  private deadPostings = 0;
  /** Scratch for one search: score by slot (0 = not matched), and the slots matched. */
  private scores = new Float64Array(this.capacity);
  /** Scratch for one search: query words each slot holds, and the last word counted for it (+1). */
  private termHits = new Uint16Array(this.capacity);
  private lastWord = new Uint16Array(this.capacity);

  /** `repacked` hears of every pack, with each term's live postings (typo-vocabulary.ts prunes). */
  constructor(private readonly repacked?: (postings: (term: number) => number) => void) {
    this.emptyLog();
  }

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
      this.log(term, slot, weight);
      postings++;
    });
    this.slotPostings[slot] = postings;
    this.rowSlot.set(row.id, slot);
    this.liveRows++;
    this.totalLength += row.length;
    this.livePostings += postings;
    this.repackWhenDue();
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
    this.repackWhenDue();
  }

  /**
   * The `limit` best rows of a group (and of some kinds, when given) for an OR of terms, best
   * first, ties by id; each term counts as often as it is given, as FTS5 counts repeated phrases.
   * With `allTermsFirst`, rows holding every term come first (each part best first), so a row
   * with a rare word alone cannot pass one with all the words.
   */
  search(terms: number[], group: number, kinds: Set<number> | null, limit: number, allTermsFirst = false): Array<{ id: number; score: number }> {
    return this.searchWeighted(
      terms.map((term, word) => ({ term, word, weight: 1 })),
      terms.length,
      group,
      kinds,
      limit,
      allTermsFirst,
    );
  }

  /**
   * `search` for query terms that may stand in for the same word with weights (`QueryTerm`); a
   * term's IDF is its own, times its weight. With `allTermsFirst`, rows holding every one of the
   * `words` (through any of its terms) come first.
   */
  searchWeighted(
    terms: QueryTerm[],
    words: number,
    group: number,
    kinds: Set<number> | null,
    limit: number,
    allTermsFirst = false,
  ): Array<{ id: number; score: number }> {
    if (this.liveRows === 0 || limit <= 0) return [];
    const { scores, termHits, lastWord, alive, slotGroup, slotKind, slotLength, packedStart, packedSlots, packedWeights } = this;
    const { logSlots, logWeights, blockStart, blockNext } = this;
    const averageLength = this.totalLength / this.liveRows;
    const matched: number[] = [];
    let wordMark = 0;
    const credit = (slot: number, value: number) => {
      if (!alive[slot] || slotGroup[slot] !== group || (kinds !== null && !kinds.has(slotKind[slot]!))) return;
      if (scores[slot] === 0) matched.push(slot);
      scores[slot]! += value;
      if (lastWord[slot] !== wordMark) {
        lastWord[slot] = wordMark;
        termHits[slot]!++;
      }
    };
    const add = (slot: number, weight: number, idf: number) =>
      credit(slot, idf * ((weight * (K1 + 1.0)) / (weight + K1 * (1 - B + (B * slotLength[slot]!) / averageLength))));
    for (const queryTerm of terms) {
      wordMark = queryTerm.word + 1;
      if ('rows' in queryTerm) {
        for (const row of queryTerm.rows) {
          const slot = this.rowSlot.get(row.id);
          if (slot !== undefined && row.score > 0) credit(slot, row.score * queryTerm.weight);
        }
        continue;
      }
      const { term, weight: termWeight, idfAtMost } = queryTerm;
      if (term >= this.terms) continue;
      const documents = this.liveDocuments(term);
      if (documents === 0) continue;
      let idf = this.idf(documents);
      const capDocuments = idfAtMost === undefined ? 0 : this.liveDocuments(idfAtMost);
      if (capDocuments > 0) idf = Math.min(idf, this.idf(capDocuments));
      idf *= termWeight;
      const packed = term + 1 < packedStart.length;
      const from = packed ? packedStart[term]! : 0;
      const to = packed ? packedStart[term + 1]! : 0;
      const first = this.firstBlock[term]!;
      for (let i = from; i < to; i++) add(packedSlots[i]!, packedWeights[i]!, idf);
      for (let block = first; block >= 0; block = blockNext[block]!) {
        for (let i = blockStart[block]!, end = this.blockEnd(term, block); i < end; i++) add(logSlots[i]!, logWeights[i]!, idf);
      }
    }
    let best: number[];
    if (allTermsFirst) {
      // A row counts each word once, whichever of its terms it holds: all of them = words.
      const holdingAll = matched.filter((slot) => termHits[slot] === words);
      const others = matched.filter((slot) => termHits[slot] !== words);
      best = topSlots(holdingAll, scores, this.slotRow, limit);
      if (best.length < limit) best.push(...topSlots(others, scores, this.slotRow, limit - best.length));
    } else {
      best = topSlots(matched, scores, this.slotRow, limit);
    }
    const results = best.map((slot) => ({ id: this.slotRow[slot]!, score: scores[slot]! }));
    for (const slot of matched) {
      scores[slot] = 0;
      termHits[slot] = 0;
      lastWord[slot] = 0;
    }
    return results;
  }

  /** BM25's IDF of a term in `documents` live rows, as FTS5 computes it. */
  private idf(documents: number): number {
    const idf = Math.log((this.liveRows - documents + 0.5) / (documents + 0.5));
    return idf <= 0 ? MIN_IDF : idf;
  }

  /** Live rows of the whole table holding a term (BM25's statistics are the table's). */
  private liveDocuments(term: number): number {
    if (term >= this.terms) return 0;
    const { alive, packedStart, packedSlots, logSlots, blockStart, blockNext } = this;
    let documents = 0;
    if (term + 1 < packedStart.length) {
      for (let i = packedStart[term]!, end = packedStart[term + 1]!; i < end; i++) documents += alive[packedSlots[i]!]!;
    }
    for (let block = this.firstBlock[term]!; block >= 0; block = blockNext[block]!) {
      for (let i = blockStart[block]!, end = this.blockEnd(term, block); i < end; i++) documents += alive[logSlots[i]!]!;
    }
    return documents;
  }

  /**
   * Live rows of a group holding a term, counted up to `enough` (a query word is rare, a
   * correction more frequent than it: neither needs the whole count of a common term).
   */
  documents(term: number, group: number, enough = Infinity): number {
    if (term >= this.terms) return 0;
    const { alive, slotGroup, packedStart, packedSlots, logSlots, blockStart, blockNext } = this;
    let documents = 0;
    if (term + 1 < packedStart.length) {
      for (let i = packedStart[term]!, end = packedStart[term + 1]!; i < end && documents < enough; i++) {
        const slot = packedSlots[i]!;
        if (alive[slot] && slotGroup[slot] === group) documents++;
      }
    }
    for (let block = this.firstBlock[term]!; block >= 0 && documents < enough; block = blockNext[block]!) {
      for (let i = blockStart[block]!, end = this.blockEnd(term, block); i < end; i++) {
        const slot = logSlots[i]!;
        if (alive[slot] && slotGroup[slot] === group) documents++;
      }
    }
    return documents;
  }

  private log(term: number, slot: number, weight: number): void {
    if (term >= this.terms) this.addTerms(term + 1);
    let block = this.lastBlock[term]!;
    if (block < 0 || this.lastBlockFill[term] === this.blockRoom[block]) {
      const next = this.newBlock(block < 0 ? FIRST_BLOCK : Math.min(2 * this.blockRoom[block]!, LARGEST_BLOCK));
      if (block < 0) this.firstBlock[term] = next;
      else this.blockNext[block] = next;
      this.lastBlock[term] = next;
      this.lastBlockFill[term] = 0;
      block = next;
    }
    const at = this.blockStart[block]! + this.lastBlockFill[term]!++;
    this.logSlots[at] = slot;
    this.logWeights[at] = weight;
    this.logged++;
  }

  /** Where a block's postings end: at its room, or for a term's last block, as far as it is filled. */
  private blockEnd(term: number, block: number): number {
    return this.blockStart[block]! + (block === this.lastBlock[term] ? this.lastBlockFill[term]! : this.blockRoom[block]!);
  }

  private newBlock(room: number): number {
    if (this.blocks === this.blockStart.length) {
      this.blockStart = resized(this.blockStart, this.blocks * 2);
      this.blockRoom = resized(this.blockRoom, this.blocks * 2);
      this.blockNext = resized(this.blockNext, this.blocks * 2);
    }
    if (this.logRoomUsed + room > this.logSlots.length) {
      const length = Math.max(this.logSlots.length * 2, this.logRoomUsed + room);
      this.logSlots = resized(this.logSlots, length);
      this.logWeights = resized(this.logWeights, length);
    }
    const block = this.blocks++;
    this.blockStart[block] = this.logRoomUsed;
    this.blockRoom[block] = room;
    this.blockNext[block] = -1;
    this.logRoomUsed += room;
    return block;
  }

  private addTerms(count: number): void {
    if (count > this.firstBlock.length) {
      const length = Math.max(count, this.firstBlock.length * 2, 1024);
      const grown = (array: Int32Array, empty: number) => {
        const copy = new Int32Array(length).fill(empty);
        copy.set(array);
        return copy;
      };
      this.firstBlock = grown(this.firstBlock, -1);
      this.lastBlock = grown(this.lastBlock, -1);
      this.lastBlockFill = grown(this.lastBlockFill, 0);
    }
    this.terms = count;
  }

  private repackWhenDue(): void {
    if (this.deadPostings + this.logged > REPACK_SHARE * this.livePostings + REPACK_FLOOR) this.repack();
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
    this.termHits = resized(this.termHits, this.capacity);
    this.lastWord = resized(this.lastWord, this.capacity);
  }

  /**
   * Renumbers the live slots densely and packs every live posting (the packed ones, then the log
   * in arrival order) into new packed arrays; dead postings and the log are dropped.
   */
  private repack(): void {
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

    const { packedStart, packedSlots, packedWeights, logSlots, logWeights, blockStart, blockNext, firstBlock, terms } = this;
    const packedTerms = packedStart.length - 1;
    // Two walks over every posting, written out rather than through a shared callback, which would
    // cost a call per posting. First the live postings per term, then each term's first position.
    const start = new Int32Array(terms + 1);
    for (let term = 0; term < terms; term++) {
      let live = 0;
      if (term < packedTerms) {
        for (let i = packedStart[term]!, end = packedStart[term + 1]!; i < end; i++) if (renumbered[packedSlots[i]!]! >= 0) live++;
      }
      for (let block = firstBlock[term]!; block >= 0; block = blockNext[block]!) {
        for (let i = blockStart[block]!, end = this.blockEnd(term, block); i < end; i++) if (renumbered[logSlots[i]!]! >= 0) live++;
      }
      start[term + 1] = start[term]! + live;
    }
    // Then each term's live postings, packed ones first, then its blocks in order.
    const slots = new Int32Array(start[terms]!);
    const weights = new Float32Array(start[terms]!);
    let at = 0;
    for (let term = 0; term < terms; term++) {
      if (term < packedTerms) {
        for (let i = packedStart[term]!, end = packedStart[term + 1]!; i < end; i++) {
          const slot = renumbered[packedSlots[i]!]!;
          if (slot < 0) continue;
          slots[at] = slot;
          weights[at++] = packedWeights[i]!;
        }
      }
      for (let block = firstBlock[term]!; block >= 0; block = blockNext[block]!) {
        for (let i = blockStart[block]!, end = this.blockEnd(term, block); i < end; i++) {
          const slot = renumbered[logSlots[i]!]!;
          if (slot < 0) continue;
          slots[at] = slot;
          weights[at++] = logWeights[i]!;
        }
      }
    }
    this.packedStart = start;
    this.packedSlots = slots;
    this.packedWeights = weights;
    this.emptyLog();
    this.deadPostings = 0;
    this.repacked?.((term) => (term < terms ? start[term + 1]! - start[term]! : 0));
  }

  /** A new, small log: after a pack its room would otherwise stay at its largest. */
  private emptyLog(): void {
    this.logSlots = new Int32Array(FIRST_LOG_ROOM);
    this.logWeights = new Float32Array(FIRST_LOG_ROOM);
    this.logRoomUsed = 0;
    this.blockStart = new Int32Array(FIRST_BLOCKS);
    this.blockRoom = new Int32Array(FIRST_BLOCKS);
    this.blockNext = new Int32Array(FIRST_BLOCKS);
    this.blocks = 0;
    this.firstBlock.fill(-1);
    this.lastBlock.fill(-1);
    this.lastBlockFill.fill(0);
    this.logged = 0;
  }
}

function resized<T extends Int32Array | Float32Array | Float64Array | Uint8Array | Uint16Array>(array: T, length: number): T {
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
