import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CuratedEntry, CuratedMatcher, curatedTerms, KEYWORD_ONLY_TUNING } from '../../../../../server/retrieval/curated/match.ts';

/** A unit vector along the given axes (the embedder's vectors are unit length too). */
function vector(...weights: number[]): Float32Array {
  const norm = Math.hypot(...weights);
  return Float32Array.from(weights, (w) => w / norm);
}

const keywordsOnly = (entries: Array<{ id: number; texts: string[] }>, language: 'en' | 'de' = 'en') =>
  new CuratedMatcher(entries.map(({ id, texts }) => ({ id, phrasings: texts.map((text) => ({ text, vector: null })) })), language);

const SHOP = [
  { id: 1, texts: ['What are your opening hours?', 'When are you open?'] },
  { id: 2, texts: ['Do you deliver to my address?'] },
  { id: 3, texts: ['How can I return a damaged parcel?'] },
];

describe('curated answer matching', () => {
  it('reads words as the knowledge base\'s search does: stop words out, stemmed, in its language', () => {
    assert.deepEqual(curatedTerms('Do you deliver the parcels?', 'en'), ['deliv', 'parcel']);
    assert.deepEqual(curatedTerms('Liefern Sie die Pakete?', 'de'), ['lief', 'paket']);
  });

  it('matches a rewording by its words, the question or any alsoAsked phrasing', () => {
    const matcher = keywordsOnly(SHOP);
    assert.equal(matcher.match('opening hours?', null)?.id, 1);
    assert.equal(matcher.match('when are you opened?', null)?.id, 1);
    assert.equal(matcher.match('returning a damaged parcel', null)?.id, 3);
  });

  it('reads a misspelt word as the phrasings\' word one edit away', () => {
    const matcher = keywordsOnly(SHOP);
    assert.equal(matcher.match('return a damagd parcl', null)?.id, 3);
  });

  it('leaves a question that matches none to the assistant', () => {
    const matcher = keywordsOnly(SHOP);
    assert.equal(matcher.match('Is the chocolate cake vegan?', null), null);
    assert.equal(matcher.match('', null), null);
    assert.equal(keywordsOnly([]).match('opening hours', null), null);
  });

  it('lets the embedder\'s cosine decide between wordings that share few words', () => {
    const entries: CuratedEntry[] = [
      { id: 1, phrasings: [{ text: 'What are your opening hours?', vector: vector(1, 0, 0) }] },
      { id: 2, phrasings: [{ text: 'Do you deliver to my address?', vector: vector(0, 1, 0) }] },
    ];
    const matcher = new CuratedMatcher(entries, 'en');
    // One word in common ("hours"); the vector says it means the first.
    const question = 'how many hours a day can I come by';
    assert.equal(matcher.match(question, vector(0.95, 0.05, 0.05))?.id, 1);
    assert.equal(matcher.match(question, vector(0.05, 0.05, 0.95)), null, 'the same words, a vector near neither: no match');
    assert.equal(matcher.match(question, null), null, 'without the vector, too few words in common');
  });

  it('refuses a question between two curated answers (the margin), however high its score', () => {
    const entries: CuratedEntry[] = [
      { id: 1, phrasings: [{ text: 'store pickup times', vector: vector(1, 1, 0) }] },
      { id: 2, phrasings: [{ text: 'store pickup places', vector: vector(1, 1, 0.01) }] },
    ];
    const matcher = new CuratedMatcher(entries, 'en');
    assert.equal(matcher.match('store pickup', vector(1, 1, 0.005)), null);
    assert.equal(matcher.match('store pickup', vector(1, 1, 0.005), { cosineWeight: 0.5, threshold: 0.3, margin: 0 })?.id !== undefined, true, 'without a margin it would guess');
  });

  it('holds keyword-only matching to its stricter threshold', () => {
    const matcher = keywordsOnly(SHOP);
    const { overlap } = matcher.signals('opening hours', null);
    assert.ok(Math.max(...overlap) >= KEYWORD_ONLY_TUNING.threshold);
    const weak = matcher.signals('hours of the damaged delivery', null);
    assert.ok(Math.max(...weak.overlap) < 1);
  });
});
