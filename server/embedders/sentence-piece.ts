/**
 * USE-lite's SentencePiece tokenizer, giving exactly the ids of the one in @energetic-ai/embeddings
 * (test/integration/embedders.test.ts compares them on real passages and odd Unicode), only faster.
 * The package's copy hands every position a copy of the rest of the text to search from (quadratic
 * in the text's length, and the chunker counts tokens sentence by sentence); this one walks the
 * trie in place. The Viterbi pass keeps the package's order and its ties (`>=`, and a best score of
 * exactly 0 counting as unset) so the chosen pieces never differ.
 */

/** [piece, log probability] in id order, as shipped with the model. */
export type Vocabulary = Array<[string, number]>;

const SEPARATOR = '\u2581';
/** Ids below this (unknown, <s>, </s>, extra ids) are never matched as pieces. */
const RESERVED_SYMBOLS = 6;
const UNKNOWN = 0;

type TrieNode = { children: Map<number, TrieNode>; index: number };

export class SentencePieceTokenizer {
  private readonly root: TrieNode = { children: new Map(), index: -1 };
  private readonly scores: Float64Array;
  /** UTF-16 length of each piece: the package steps back by it when reading the best path. */
  private readonly lengths: Int32Array;

  constructor(vocabulary: Vocabulary) {
    this.scores = Float64Array.from(vocabulary, ([, score]) => score);
    this.lengths = Int32Array.from(vocabulary, ([piece]) => piece.length);
    for (let index = RESERVED_SYMBOLS; index < vocabulary.length; index++) this.insert(vocabulary[index]![0], index);
  }

  encode(input: string): number[] {
    const symbols = codePoints(prepare(input));
    const n = symbols.length;
    // Best path score and last piece of each prefix. Pieces are tried by start position, then by
    // length: every piece ending at a position is tried in the package's order (ascending start),
    // and the prefix a piece extends is final before any piece starts there.
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    const relax = (end: number, id: number, score: number) => {
      if (best[end] === 0 || score >= best[end]!) {
        best[end] = score;
        words[end] = id;
      }
    };
    for (let start = 0; start < n; start++) {
      const before = best[start]!;
      let node = this.root.children.get(symbols[start]!);
      let matched = false;
      for (let end = start + 1; node; end++) {
        if (node.index >= 0) {
          relax(end, node.index, this.scores[node.index]! + before);
          matched = true;
        }
        node = end < n ? node.children.get(symbols[end]!) : undefined;
      }
      // No piece starts here: the character becomes the unknown piece, scored 0.
      if (!matched) relax(start + 1, UNKNOWN, 0 + before);
    }

    const reversed: number[] = [];
    for (let at = n; at > 0; at -= this.lengths[words[at]!]!) reversed.push(words[at]!);
    // Runs of unknown pieces collapse into one.
    const ids: number[] = [];
    let previousUnknown = false;
    for (const id of reversed) {
      if (!(previousUnknown && id === UNKNOWN)) ids.push(id);
      previousUnknown = id === UNKNOWN;
    }
    return ids.reverse();
  }

  private insert(piece: string, index: number): void {
    let node = this.root;
    for (const symbol of codePoints(piece)) {
      let child = node.children.get(symbol);
      if (!child) {
        child = { children: new Map(), index: -1 };
        node.children.set(symbol, child);
      }
      node = child;
    }
    // A repeated piece keeps the last id, as in the package.
    node.index = index;
  }
}

/** NFKC, and a word-start marker before the text and in place of every space. */
function prepare(input: string): string {
  const normalized = input.normalize('NFKC');
  return normalized.length > 0 ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : normalized;
}

function codePoints(text: string): number[] {
  const symbols: number[] = [];
  for (const symbol of text) symbols.push(symbol.codePointAt(0)!);
  return symbols;
}
