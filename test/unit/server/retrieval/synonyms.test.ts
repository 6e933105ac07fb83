import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { synonymsUpdateSchema } from '../../../../common/contract/synonyms.ts';
import { buildLookup, querySynonyms } from '../../../../server/retrieval/synonyms.ts';
import { searchWords } from '../../../../server/language/query-words.ts';

const sets = synonymsUpdateSchema.parse({
  sets: [
    { synonyms: ['sofa', 'couch', 'settee'] },
    { root: 'hoodie', synonyms: ['sweatshirt', 'jumper'] },
    { synonyms: ['tee', 'T-shirt'] },
    { root: 'the who', synonyms: ['band'] },
  ],
}).sets;
const lookup = buildLookup(sets);
const added = (query: string) => {
  const words = searchWords(query);
  return Object.fromEntries(querySynonyms(query, words, lookup).flatMap((terms, i) => (terms.length ? [[words[i], terms.sort()]] : [])));
};

describe('synonyms a query adds', () => {
  it('adds every other term of a multi-way set, and a one-way root its synonyms only', () => {
    assert.deepEqual(added('blue couch'), { couch: ['settee', 'sofa'] });
    assert.deepEqual(added('Hoodie for kids'), { hoodie: ['jumper', 'sweatshirt'] });
    assert.deepEqual(added('sweatshirt'), {}, 'one-way: a synonym adds nothing');
  });

  it('matches a phrase only as consecutive words, and adds a phrase as one term', () => {
    assert.deepEqual(added('white T-Shirt'), { t: ['tee'] });
    assert.deepEqual(added('shirt with a t'), {}, 'the words apart are not the phrase');
    assert.deepEqual(added('graphic tee'), { tee: ['t shirt'] });
  });

  it('finds a phrase of stopwords and gives its synonyms to a search word of the phrase', () => {
    // "the" and "who" are both stopwords: searchWords keeps them only when nothing else is left.
    assert.deepEqual(added('the who'), { the: ['band'] });
    assert.deepEqual(added('tickets the who'), {}, 'no search word of the phrase left to carry it');
  });

  it('leaves out terms the query holds itself', () => {
    assert.deepEqual(added('sofa or couch'), { sofa: ['settee'], couch: ['settee'] });
  });
});

describe('synonym sets as the contract reads them', () => {
  it('stores terms in lower case with their words one space apart', () => {
    assert.deepEqual(sets[2], { synonyms: ['tee', 't shirt'] });
    assert.deepEqual(synonymsUpdateSchema.parse({ sets: [{ root: ' Hoodie ', synonyms: ['Sweat-Shirt'] }] }).sets, [{ root: 'hoodie', synonyms: ['sweat shirt'] }]);
  });

  it('refuses what cannot be a set, naming the field', () => {
    const refusal = (body: unknown) => {
      const read = synonymsUpdateSchema.safeParse(body);
      assert.equal(read.success, false);
      return read.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    assert.deepEqual(refusal({ sets: [{ synonyms: ['sofa'] }] }), ['sets.0.synonyms: A multi-way set (no root) needs at least two terms.']);
    assert.deepEqual(refusal({ sets: [{ root: '', synonyms: ['a'] }] }), ['sets.0.root: A term must hold a letter or a digit (empty terms are refused).']);
    assert.deepEqual(refusal({ sets: [{ root: 'x', synonyms: Array.from({ length: 20 }, (_, i) => `s${i}`) }] }), ['sets.0.synonyms: A set has at most 20 terms, its root included.']);
  });
});
