import { foldWord } from '../language/index-words.ts';
import { editDistance } from './edit-distance.ts';

/**
 * Shortest word kept: a query word has at least 5 letters to be corrected, and at most 1 edit
 * at that length, so nothing shorter than 4 can be its correction.
 */
const SHORTEST = 4;
/** Longer "words" are codes, hashes or run-together text: nobody types them to be corrected. */
const LONGEST = 40;
/** Bigram codes of a word's start and end (no letter has them). */
const START = 1;
const END = 2;
/**
 * One edit destroys at most this many of a word's bigrams (swapping `ab` in `xaby` loses `xa`,
 * `ab`, `by`): a word within k edits of another shares all but 3k of its distinct bigrams.
 */
const BIGRAMS_PER_EDIT = 3;
/** Shown words of dead terms tolerated, as a share of the shown ones plus a floor, before a rebuild. */
const REBUILD_SHARE = 0.25;
const REBUILD_FLOOR = 5_000;

export type NearWord = {
  /** The vocabulary's word, in lower case with its diacritics (for showing). */
  word: string;
  /** Its keyword term (the tokenizer's id of its stem). */
  term: number;
  distance: number;
};

type List = { ids: Int32Array; size: number };

/**
 * The words of the keyword index as they were written (lower-cased surface forms, not stems),
 * each with its term, and an index of their bigrams by word length to find the words within one
 * or two edits of a misspelt one: a word of n letters within k edits of another shares at least
 * (distinct bigrams − 3k) of its distinct bigrams with it, so counting shared bigrams over the
 * lists of lengths n − k … n + k leaves a few candidates, checked by their edit distance.
 *
 * A word is findable while its term is shown (`show`, once a row with the term is indexed). Words
 * are kept for the vocabulary's life (the tokenizer tells each piece of text once, and a removed
 * term may come back); the bigram lists drop the words of dead terms when they pile up (`prune`).
 * Liveness per knowledge base is the postings' business: callers check a candidate's documents.
 */
export class TypoVocabulary {
  /** Folded words by id, their terms, and the unfolded form where folding changed it. */
  private words: string[] = [];
  private wordTerm = new Int32Array(1024);
  private readonly unfolded = new Map<number, string>();
  private readonly wordIds = new Map<string, number>();
  /** A term's words as a chain: its first word, then each word's next (-1: none). */
  private termFirstWord = new Int32Array(1024).fill(-1);
  private nextWord = new Int32Array(1024);
  /** Whether a term's words are in the bigram lists. */
  private termShown = new Uint8Array(1024);
  private shownTerms = 0;
  /** Word ids by (length, bigram). */
  private lists = new Map<number, List>();
  /** Scratch for one search: shared bigrams by word id. */
  private counts = new Uint8Array(1024);

  get size(): number {
    return this.words.length;
  }

  /** Bytes the word ids in the bigram lists take (strings and maps aside). */
  get listBytes(): number {
    let bytes = 0;
    for (const list of this.lists.values()) bytes += list.ids.byteLength;
    return bytes;
  }

  /**
   * Records a word of the index as written and its term; ignored when too short or long to
   * correct or holding a digit (numbers, ids and SKUs are never a correction).
   */
  learn(written: string, term: number): void {
    const folded = foldWord(written);
    const length = codePointLength(folded);
    if (length < SHORTEST || length > LONGEST || /\p{N}/u.test(folded) || this.wordIds.has(folded)) return;
    const id = this.words.length;
    // Copies: a word cut from a text would keep the whole text alive.
    const kept = copy(folded);
    this.words.push(kept);
    this.wordIds.set(kept, id);
    const lower = written.toLowerCase();
    if (lower !== folded) this.unfolded.set(id, copy(lower));
    if (id === this.wordTerm.length) {
      this.wordTerm = grown(this.wordTerm, 2 * id, 0);
      this.nextWord = grown(this.nextWord, 2 * id, 0);
      this.counts = grown(this.counts, 2 * id, 0);
    }
    this.ensureTerm(term);
    this.wordTerm[id] = term;
    this.nextWord[id] = this.termFirstWord[term]!;
    this.termFirstWord[term] = id;
    if (this.termShown[term]) this.list(id);
  }

  /** Makes a term's words findable (a row holding it was indexed); cheap when they already are. */
  show(term: number): void {
    if (term < this.termShown.length && this.termShown[term]) return;
    this.ensureTerm(term);
    this.termShown[term] = 1;
    this.shownTerms++;
    for (let id = this.termFirstWord[term]!; id >= 0; id = this.nextWord[id]!) this.list(id);
  }

  /**
   * After the postings dropped their dead rows: when the shown terms without any posting left
   * pass a share of the shown ones, the lists are built again from the live terms only.
   */
  prune(postings: (term: number) => number): void {
    let dead = 0;
    for (let term = 0; term < this.termShown.length; term++) if (this.termShown[term] && postings(term) === 0) dead++;
    if (dead <= REBUILD_SHARE * this.shownTerms + REBUILD_FLOOR) return;
    this.lists = new Map();
    this.shownTerms = 0;
    const wasShown = this.termShown;
    this.termShown = new Uint8Array(wasShown.length);
    for (let term = 0; term < wasShown.length; term++) if (wasShown[term] && postings(term) > 0) this.show(term);
  }

  /**
   * The words within `maxDistance` edits of `word` (optimal string alignment: a swap of two
   * neighbouring letters is one edit), the word itself included when known.
   */
  near(word: string, maxDistance: number): NearWord[] {
    const letters = codePoints(foldWord(word));
    const n = letters.length;
    const bigrams = distinctBigrams(letters);
    const needed = bigrams.length - BIGRAMS_PER_EDIT * maxDistance;
    // Too few distinct bigrams ("aaaaa") to narrow anything down: such a word is not corrected.
    if (needed < 1) return [];
    const { counts } = this;
    const touched: number[] = [];
    for (let length = Math.max(SHORTEST, n - maxDistance); length <= Math.min(LONGEST, n + maxDistance); length++) {
      for (const bigram of bigrams) {
        const list = this.lists.get(listKey(length, bigram));
        if (!list) continue;
        const { ids, size } = list;
        for (let i = 0; i < size; i++) {
          const id = ids[i]!;
          if (counts[id]!++ === 0) touched.push(id);
        }
      }
    }
    const near: NearWord[] = [];
    for (const id of touched) {
      if (counts[id]! >= needed) {
        const distance = editDistance(letters, codePoints(this.words[id]!), maxDistance);
        if (distance <= maxDistance) near.push({ word: this.unfolded.get(id) ?? this.words[id]!, term: this.wordTerm[id]!, distance });
      }
      counts[id] = 0;
    }
    return near;
  }

  private list(id: number): void {
    const letters = codePoints(this.words[id]!);
    for (const bigram of distinctBigrams(letters)) {
      const key = listKey(letters.length, bigram);
      let list = this.lists.get(key);
      if (!list) this.lists.set(key, (list = { ids: new Int32Array(4), size: 0 }));
      if (list.size === list.ids.length) list.ids = grown(list.ids, 2 * list.size, 0);
      list.ids[list.size++] = id;
    }
  }

  private ensureTerm(term: number): void {
    if (term < this.termFirstWord.length) return;
    const length = Math.max(term + 1, 2 * this.termFirstWord.length);
    this.termFirstWord = grown(this.termFirstWord, length, -1);
    this.termShown = grown(this.termShown, length, 0);
  }
}

function copy(text: string): string {
  return (' ' + text).slice(1);
}

function codePoints(word: string): number[] {
  const points: number[] = [];
  for (const char of word) points.push(char.codePointAt(0)!);
  return points;
}

function codePointLength(word: string): number {
  let length = 0;
  for (const _ of word) length++;
  return length;
}

/** A word's bigrams with its start and end marked, each once, as numbers (two code points). */
function distinctBigrams(letters: number[]): number[] {
  const bigrams = new Set<number>();
  let before = START;
  for (const letter of letters) {
    bigrams.add(before * 0x200000 + letter);
    before = letter;
  }
  bigrams.add(before * 0x200000 + END);
  return [...bigrams];
}

/** A list's key: the word length above the bigram's 42 bits (exact in a double up to length 63). */
function listKey(length: number, bigram: number): number {
  return length * 2 ** 42 + bigram;
}

function grown<T extends Int32Array | Uint8Array>(array: T, length: number, fill: number): T {
  const copy = new (array.constructor as new (length: number) => T)(length);
  copy.fill(fill);
  copy.set(array);
  return copy;
}
