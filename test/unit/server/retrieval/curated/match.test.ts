import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TrigramIndex } from '../../../../../server/retrieval/curated/grams.ts';
import { type CuratedEntry, CuratedMatcher, curatedTerms, DEFAULT_MATCH_TUNING, KEYWORD_ONLY_TUNING, SUGGESTED, SUGGESTION_FLOOR } from '../../../../../server/retrieval/curated/match.ts';

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
    assert.equal(matcher.match('store pickup', vector(1, 1, 0.005), { ...DEFAULT_MATCH_TUNING, margin: 0 })?.id !== undefined, true, 'without a margin it would guess');
  });

  it('ranks the best-scoring curated answers, best first: what a "Did you mean" offer lists when none is matched', () => {
    const matcher = keywordsOnly([...SHOP, { id: 4, texts: ['Can I return a parcel by post?'] }]);
    const signals = matcher.signals('return parcel', null);
    const ranked = matcher.ranked(signals, KEYWORD_ONLY_TUNING, 3);
    assert.deepEqual(ranked.map((r) => r.id).slice(0, 2).sort(), [3, 4], 'the two about returning a parcel come first');
    assert.equal(ranked.length, 3);
    assert.ok(ranked[0]!.score >= ranked[1]!.score && ranked[1]!.score >= ranked[2]!.score);
    assert.deepEqual(ranked.map((r) => r.score), [...matcher.scores(signals, KEYWORD_ONLY_TUNING)].sort((a, b) => b - a).slice(0, 3), 'the three highest of every score');
    assert.equal(matcher.decide(signals, KEYWORD_ONLY_TUNING), null, 'two close candidates: none matched, both offered');
    assert.equal(matcher.ranked(signals, KEYWORD_ONLY_TUNING, 10).length, 4, 'never more than there are');
    assert.deepEqual(keywordsOnly([]).ranked(signals, KEYWORD_ONLY_TUNING, 3), []);
  });

  it('holds keyword-only matching to its own threshold', () => {
    const matcher = keywordsOnly(SHOP);
    const strong = matcher.scores(matcher.signals('opening hours', null), KEYWORD_ONLY_TUNING);
    assert.ok(Math.max(...strong) >= KEYWORD_ONLY_TUNING.threshold);
    const weak = matcher.scores(matcher.signals('hours of the damaged delivery', null), KEYWORD_ONLY_TUNING);
    assert.ok(Math.max(...weak) < KEYWORD_ONLY_TUNING.threshold);
  });

  it('matches a question by the words of the answer when its question shares none', () => {
    const entries: CuratedEntry[] = [
      { id: 1, phrasings: [{ text: 'How do I strike text out on GitHub?', vector: null }], answer: { text: 'Put ~~tildes~~ around the words: GitHub Markdown draws a line through them.', vector: null } },
      { id: 2, phrasings: [{ text: 'How do I delete my account?', vector: null }], answer: { text: 'Open Settings, then Account, and press Delete.', vector: null } },
    ];
    const question = 'markdown tildes line through words';
    assert.equal(new CuratedMatcher(entries, 'en').match(question, null)?.id, 1);
    const withoutAnswers = new CuratedMatcher(entries.map(({ answer: _answer, ...rest }) => rest), 'en');
    assert.equal(withoutAnswers.match(question, null), null, 'the question alone shares too little with it');
  });

  it('lets the answer\'s vector count when the question\'s vector is near the answer, not its question', () => {
    const entries: CuratedEntry[] = [
      { id: 1, phrasings: [{ text: 'Can I come by on Sunday?', vector: vector(1, 0, 0, 0) }], answer: { text: 'Our shop is closed on Sundays.', vector: vector(0, 0, 0, 1) } },
      { id: 2, phrasings: [{ text: 'Do you deliver to my address?', vector: vector(0, 1, 0, 0) }], answer: { text: 'We deliver in town.', vector: vector(0, 0, 1, 0) } },
    ];
    const matcher = new CuratedMatcher(entries, 'en');
    const signals = matcher.signals('is the store shut at weekends', vector(0.2, 0, 0, 1));
    assert.ok(signals.answerCosine![0]! > 0.9 && signals.answerCosine![1]! < 0.1);
    const scores = matcher.scores(signals, DEFAULT_MATCH_TUNING);
    assert.ok(scores[0]! - scores[1]! >= DEFAULT_MATCH_TUNING.answerCosine * 0.9, 'the answer\'s cosine lifts the first answer');
    const ignored = matcher.scores(signals, { ...DEFAULT_MATCH_TUNING, answerCosine: 0 });
    assert.ok(ignored[0]! - ignored[1]! < scores[0]! - scores[1]!, 'a weight of 0 leaves it out');
  });

  it('reads other forms of a word and compounds by their letter trigrams, in any language', () => {
    const trigrams = new TrigramIndex(['Wann kommt meine Lieferung?', 'Kann ich mit Karte bezahlen?']);
    const [delivery, card] = trigrams.similarities('Lieferzeiten');
    // "Lieferzeiten" shares " li", "lie", "ief", "efe", "fer" with "Lieferung"; with the other question only "en ".
    assert.ok(delivery! > 0.2 && delivery! > 4 * card!, `${delivery} ${card}`);
    const [same] = new TrigramIndex(['strikethrough text']).similarities('Strikethrough text!');
    assert.ok(Math.abs(same! - 1) < 1e-9, 'the same words score 1, whatever their case and punctuation');
    const matcher = keywordsOnly([
      { id: 1, texts: ['Wann kommt meine Lieferung?'] },
      { id: 2, texts: ['Kann ich mit Karte bezahlen?'] },
    ], 'de');
    const signals = matcher.signals('Lieferzeiten?', null);
    assert.equal(signals.words[0], 0, 'no word in common after stemming');
    assert.ok(signals.grams[0]! > signals.grams[1]!);
  });

  it('picks the phrasing closest to the question for each curated answer', () => {
    const matcher = keywordsOnly(SHOP);
    const signals = matcher.signals('When are you open?', null);
    // The phrasings in order: answer 1's two, then answer 2's, then answer 3's.
    assert.ok(signals.grams[1]! > signals.grams[0]!);
    const scores = matcher.scores(signals, { ...KEYWORD_ONLY_TUNING, words: 0, grams: 1 });
    assert.ok(Math.abs(scores[0]! - signals.grams[1]!) < 1e-12, 'the answer scores its best phrasing');
  });

  it('reads a phrasing stored without a vector by its trigrams, and an answer without one by its closest phrasing', () => {
    const entries: CuratedEntry[] = [
      { id: 1, phrasings: [{ text: 'What are your opening hours?', vector: vector(1, 0, 0) }, { text: 'When are you open?', vector: null }], answer: { text: 'Nine to five.', vector: null } },
      { id: 2, phrasings: [{ text: 'Do you deliver to my address?', vector: vector(0, 1, 0) }], answer: { text: 'We deliver in town.', vector: vector(0, 0, 1) } },
    ];
    const matcher = new CuratedMatcher(entries, 'en');
    const signals = matcher.signals('when are you open', vector(1, 0, 0));
    assert.equal(signals.cosine![1], signals.grams[1], 'no vector: its trigram similarity stands in');
    assert.equal(signals.answerCosine![0], Math.max(signals.cosine![0]!, signals.cosine![1]!), 'no answer vector: the closest phrasing\'s cosine');
    assert.equal(matcher.match('when are you open', vector(1, 0, 0))?.id, 1);
  });

  it('gives no similarity for a text without words, and none against an empty set', () => {
    assert.deepEqual([...new TrigramIndex(['opening hours']).similarities('?! …')], [0]);
    assert.deepEqual([...new TrigramIndex([]).similarities('opening hours')], []);
  });

  it('suggests ("Did you mean") the best-scoring curated answers when the best clears the floor: at most SUGGESTED, best first', () => {
    const matcher = keywordsOnly([...SHOP, { id: 4, texts: ['Can I return a parcel by post?'] }, { id: 5, texts: ['Can I return a parcel in the shop?'] }]);
    const question = 'return parcel';
    assert.equal(matcher.match(question, null), null, 'close candidates: none matched');
    const suggested = matcher.suggest(question, null);
    assert.equal(SUGGESTED, 3);
    assert.equal(suggested.length, SUGGESTED, 'four candidates, three offered');
    const signals = matcher.signals(question, null);
    assert.deepEqual(suggested, matcher.ranked(signals, KEYWORD_ONLY_TUNING, SUGGESTED), 'the ranking decide reads, cut at three');
    assert.ok(suggested[0]!.score >= SUGGESTION_FLOOR);
    assert.deepEqual(suggested.map((s) => s.id).sort(), [3, 4, 5]);
  });

  it('suggests nothing when the best curated answer scores under the floor, and nothing from an empty set', () => {
    const matcher = keywordsOnly(SHOP);
    const question = 'Is the chocolate cake vegan?';
    const best = Math.max(...matcher.scores(matcher.signals(question, null), KEYWORD_ONLY_TUNING));
    assert.ok(best < SUGGESTION_FLOOR, `best ${best}`);
    assert.deepEqual(matcher.suggest(question, null), []);
    assert.deepEqual(keywordsOnly([]).suggest('opening hours', null), []);
  });

  it('offers only the candidates that clear the floor themselves: a close first one brings no unrelated ones', () => {
    const matcher = keywordsOnly([
      { id: 1, texts: ['Where can I park my car?'] },
      { id: 2, texts: ['Can I pay by card?'] },
      { id: 3, texts: ['What are your opening hours?'] },
    ]);
    const question = 'where do I leave my car, is there parking';
    const ranked = matcher.ranked(matcher.signals(question, null), KEYWORD_ONLY_TUNING, SUGGESTED);
    assert.equal(ranked[0]!.id, 1);
    assert.ok(ranked[0]!.score >= SUGGESTION_FLOOR, `best ${ranked[0]!.score}`);
    assert.ok(ranked.slice(1).every((c) => c.score < SUGGESTION_FLOOR), JSON.stringify(ranked));
    assert.deepEqual(matcher.suggest(question, null).map((s) => s.id), [1]);
  });

  it('holds the floor exactly: a best score just over it suggests, just under it does not', () => {
    // Trigrams give 'pick up hours' about 0.10 here; the cosines (0.3 of the score, no answer text)
    // bring it to just over or just under the floor.
    const matcher = new CuratedMatcher([{ id: 7, phrasings: [{ text: 'store pickup times', vector: vector(1, 0) }] }], 'en');
    const at = (cosine: number) => vector(cosine, Math.sqrt(1 - cosine * cosine));
    const score = (v: Float32Array) => matcher.scores(matcher.signals('pick up hours', v), DEFAULT_MATCH_TUNING)[0]!;
    const over = at(0.78);
    const under = at(0.74);
    assert.ok(score(over) >= SUGGESTION_FLOOR && score(over) < SUGGESTION_FLOOR + 0.01, `${score(over)}`);
    assert.ok(score(under) < SUGGESTION_FLOOR && score(under) > SUGGESTION_FLOOR - 0.01, `${score(under)}`);
    assert.equal(matcher.match('pick up hours', over), null, 'under the match threshold: not matched');
    assert.deepEqual(matcher.suggest('pick up hours', over).map((s) => s.id), [7]);
    assert.deepEqual(matcher.suggest('pick up hours', under), []);
  });
});
