import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Bm25Postings } from '../../../../server/indexes/bm25-postings.ts';

describe('BM25 postings with synonyms', () => {
  // Terms: 0 "sofa" (rows 1-3), 1 "settee" (row 4 only: rarer, so a higher IDF), 2 filler.
  const postings = new Bm25Postings();
  const row = (id: number, terms: number[], group = 0) =>
    postings.put({ id, group, kind: 0, length: terms.length, termIds: terms, weights: terms.map(() => 1) });
  row(1, [0, 2]);
  row(2, [0, 2]);
  row(3, [0, 2]);
  row(4, [1, 2]);
  for (let id = 10; id < 20; id++) row(id, [2]);

  it('caps a synonym IDF at the word it stands for, so a rarer synonym ranks below the word typed', () => {
    const sofa = { term: 0, word: 0, weight: 1 };
    const uncapped = postings.searchWeighted([sofa, { term: 1, word: 0, weight: 0.8 }], 1, 0, null, 10);
    assert.equal(uncapped[0]!.id, 4, 'without the cap the rare synonym outranks the word typed');
    const capped = postings.searchWeighted([sofa, { term: 1, word: 0, weight: 0.8, idfAtMost: 0 }], 1, 0, null, 10);
    assert.deepEqual(capped.map((r) => r.id), [1, 2, 3, 4]);
    assert.ok(Math.abs(capped[3]!.score - 0.8 * capped[0]!.score) < 1e-9, 'same shape of row: exactly the weight below');
  });

  it('adds rows scored elsewhere (a phrase) as their word, in their group only, times the weight', () => {
    // "sofa filler": row 4 holds the phrase for word 0 and the filler for word 1, so every-word-first
    // counts it as holding both words, with rows 1-3, above the filler-only rows.
    const query = [
        { term: 0, word: 0, weight: 1 },
        { rows: [{ id: 4, score: 1e-9 }, { id: 99, score: 5 }], word: 0, weight: 0.5 },
        { term: 2, word: 1, weight: 1 },
    ];
    assert.deepEqual(postings.searchWeighted(query, 2, 0, null, 4, true).map((r) => r.id).sort(), [1, 2, 3, 4]);
    assert.equal(postings.searchWeighted(query, 2, 0, null, 4, false).some((r) => r.id === 4), false, 'by score alone, row 4 is below the filler rows');
    const withPhrase = postings.searchWeighted([{ rows: [{ id: 4, score: 2 }], word: 0, weight: 0.5 }], 1, 0, null, 10);
    assert.deepEqual(withPhrase, [{ id: 4, score: 1 }], 'an unknown row id is skipped, the score weighted');
    assert.deepEqual(postings.searchWeighted([{ rows: [{ id: 4, score: 2 }], word: 0, weight: 1 }], 1, 1, null, 10), [], 'another group');
  });
});
