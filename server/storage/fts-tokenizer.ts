import Database from 'better-sqlite3';
import type { Db } from './db.ts';

/** A row's terms, each with its count per column times the column's weight, summed. */
export type WeightedTerms = { termIds: number[]; weights: number[]; /** tokens in all columns */ length: number };

/** The terms of one piece of text: most pieces are one word, one term, kept as a bare number. */
export type PieceTerms = number | readonly number[];

/** Pieces remembered; past this the piece cache starts again (tens of MB at most). */
const CACHE_LIMIT = 200_000;

/**
 * FTS5's own tokenizer, outside the index: terms exactly as a keyword table indexes them (Porter
 * stems, diacritics removed, case folded), from a private in-memory copy of the table's definition
 * read from the schema. Reading FTS5's vocabulary back costs more than tokenizing, so texts are
 * cut at whitespace (a separator for every FTS5 tokenizer, so no token spans two pieces) and each
 * distinct piece is tokenized once and remembered: after a few thousand texts almost every piece
 * ("cells.", "(IL-6)") is known and a text costs a split and a lookup per piece.
 *
 * Terms are numbered (ids stay valid for the tokenizer's life) so rows are counted in arrays.
 */
export class FtsTokenizer {
  private readonly scratch: Db;
  private readonly stmts;
  private readonly pieces = new Map<string, PieceTerms>();
  private readonly termIdsByTerm = new Map<string, number>();
  /** Per term id, where it is in the row being weighed (-1: not in it). */
  private rowPosition = new Int32Array(1024).fill(-1);

  constructor(source: Db, table: string) {
    const definition = source.prepare<[string], { sql: string }>('SELECT sql FROM sqlite_master WHERE name = ?').get(table);
    if (!definition) throw new Error(`no keyword table ${table}`);
    this.scratch = new Database(':memory:');
    this.scratch.exec(definition.sql.replace(table, 'pieces'));
    this.scratch.exec("CREATE VIRTUAL TABLE piece_terms USING fts5vocab(pieces, 'instance')");
    const firstColumn = this.scratch.prepare('SELECT * FROM pieces LIMIT 0').columns()[0]!.name;
    this.stmts = {
      insert: this.scratch.prepare<[number, string]>(`INSERT INTO pieces (rowid, ${firstColumn}) VALUES (?, ?)`),
      terms: this.scratch.prepare<[], [string, number]>('SELECT term, doc FROM piece_terms').raw(),
      clear: this.scratch.prepare("INSERT INTO pieces (pieces) VALUES ('delete-all')"),
    };
  }

  /** The ids of a text's terms, in no particular order, repeated as often as they occur. */
  termIds(text: string): number[] {
    return this.pieceTermIds(text).flat();
  }

  /**
   * The terms of one row given its column values in table order and the columns' weights.
   * `newPiece` hears of each piece of a weighted column the first time it is seen, with its terms
   * (the keyword index's vocabulary of written words for typo tolerance is made of them).
   */
  weigh(values: string[], columnWeights: number[], newPiece?: (piece: string, terms: PieceTerms) => void): WeightedTerms {
    const row: WeightedTerms = { termIds: [], weights: [], length: 0 };
    for (let column = 0; column < values.length; column++) {
      const weight = columnWeights[column]!;
      const count = (id: number) => {
        row.length++;
        const at = this.rowPosition[id]!;
        if (at >= 0) row.weights[at]! += weight;
        else {
          this.rowPosition[id] = row.termIds.length;
          row.termIds.push(id);
          row.weights.push(weight);
        }
      };
      for (const terms of this.pieceTermIds(values[column]!, weight > 0 ? newPiece : undefined)) {
        if (typeof terms === 'number') count(terms);
        else terms.forEach(count);
      }
    }
    for (const id of row.termIds) this.rowPosition[id] = -1;
    return row;
  }

  close(): void {
    this.scratch.close();
  }

  /** The term ids of each piece of a text (one cache lookup per piece: hashing them is the cost). */
  private pieceTermIds(text: string, newPiece?: (piece: string, terms: PieceTerms) => void): PieceTerms[] {
    const pieces = text.split(/\s+/u);
    const ids = new Array<PieceTerms>(pieces.length);
    let unknown: Map<string, number[]> | null = null;
    for (let i = 0; i < pieces.length; i++) {
      const known = this.pieces.get(pieces[i]!);
      if (known !== undefined) ids[i] = known;
      else {
        unknown ??= new Map();
        const positions = unknown.get(pieces[i]!);
        if (positions) positions.push(i);
        else unknown.set(pieces[i]!, [i]);
      }
    }
    if (unknown) {
      const learned = this.learn([...unknown.keys()]);
      let next = 0;
      for (const [piece, positions] of unknown) {
        for (const i of positions) ids[i] = learned[next]!;
        newPiece?.(piece, learned[next]!);
        next++;
      }
    }
    return ids;
  }

  /** Tokenizes, in one pass through FTS5, pieces not seen before, and remembers them. */
  private learn(pieces: string[]): PieceTerms[] {
    if (this.pieces.size + pieces.length > CACHE_LIMIT) this.pieces.clear();
    const termsByPiece: number[][] = pieces.map(() => []);
    this.scratch.transaction(() => {
      pieces.forEach((piece, i) => this.stmts.insert.run(i + 1, piece));
      for (const [term, doc] of this.stmts.terms.iterate()) termsByPiece[doc - 1]!.push(this.termId(term));
      this.stmts.clear.run();
    })();
    return pieces.map((piece, i) => {
      const terms = termsByPiece[i]!;
      const ids = terms.length === 1 ? terms[0]! : terms;
      // A copy of the piece: a slice of the text would keep the whole text alive in the cache.
      this.pieces.set((' ' + piece).slice(1), ids);
      return ids;
    });
  }

  private termId(term: string): number {
    let id = this.termIdsByTerm.get(term);
    if (id === undefined) {
      id = this.termIdsByTerm.size;
      this.termIdsByTerm.set(term, id);
      if (id === this.rowPosition.length) {
        const grown = new Int32Array(id * 2).fill(-1);
        grown.set(this.rowPosition);
        this.rowPosition = grown;
      }
    }
    return id;
  }
}
