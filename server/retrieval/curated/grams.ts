import { indexWords } from '../../language/index-words.ts';

/**
 * Letter-trigram similarity: each text is the set of three-letter pieces of its words (a word
 * padded with a space at each end, so "hours" gives " ho", "hou", "our", "urs", "rs "), weighted by
 * how rare a piece is among the indexed texts, and compared by cosine. It needs no language: a
 * misspelt word ("stikethrough"), another form of a word ("deleting", "deletion") or a compound
 * ("Lieferzeiten", "Lieferung") still shares most of its pieces, where whole words share none.
 */

function pieces(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of indexWords(text)) {
    const padded = [...` ${word} `];
    for (let i = 0; i + 3 <= padded.length; i++) {
      const piece = padded[i]! + padded[i + 1]! + padded[i + 2]!;
      counts.set(piece, (counts.get(piece) ?? 0) + 1);
    }
  }
  return counts;
}

type Weights = Map<string, number>;

export class TrigramIndex {
  private readonly documentFrequency = new Map<string, number>();
  /** For each piece, the texts holding it and its weight there: a question reads only its own pieces' lists. */
  private readonly postings = new Map<string, Array<{ document: number; weight: number }>>();
  private readonly size: number;

  constructor(texts: readonly string[]) {
    this.size = texts.length;
    const counted = texts.map(pieces);
    for (const counts of counted) for (const piece of counts.keys()) this.documentFrequency.set(piece, (this.documentFrequency.get(piece) ?? 0) + 1);
    counted.forEach((counts, document) => {
      for (const [piece, weight] of this.weigh(counts)) {
        let list = this.postings.get(piece);
        if (!list) this.postings.set(piece, (list = []));
        list.push({ document, weight });
      }
    });
  }

  /** The cosine (0..1) of the text's weighted pieces with each indexed text's, in index order. */
  similarities(text: string): Float64Array {
    const out = new Float64Array(this.size);
    for (const [piece, weight] of this.weigh(pieces(text))) {
      for (const posting of this.postings.get(piece) ?? []) out[posting.document] = out[posting.document]! + weight * posting.weight;
    }
    return out;
  }

  /** Sublinear counts times a smoothed inverse document frequency, to unit length. */
  private weigh(counts: Map<string, number>): Weights {
    const weights: Weights = new Map();
    let norm = 0;
    for (const [piece, count] of counts) {
      const weight = (1 + Math.log(count)) * (Math.log((this.size + 1) / ((this.documentFrequency.get(piece) ?? 0) + 1)) + 1);
      weights.set(piece, weight);
      norm += weight * weight;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [piece, weight] of weights) weights.set(piece, weight / norm);
    return weights;
  }
}
