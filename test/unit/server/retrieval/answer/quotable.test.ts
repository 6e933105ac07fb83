import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CandidatePassage, composeAnswer, questionIntent, type ScoredSentence, scoreSentences, selectSentences } from '../../../../../server/retrieval/answer/extractive.ts';
import { weightedTerms } from '../../../../../server/retrieval/answer/question-terms.ts';
import { quotable, shownText } from '../../../../../server/retrieval/answer/quotable.ts';
import { chunkSentences, joinChunks } from '../../../../../server/retrieval/answer/sentences.ts';

describe('what an answer may quote', () => {
  it('never quotes raw structured data, and cuts it off a sentence it was pasted after', () => {
    assert.equal(quotable("}; { source: 'erp', is_heat_sensitive: { value:false } }"), false);
    assert.equal(quotable('is_heat_sensitive: false'), false);
    assert.equal(quotable('Heat sensitive: no'), true, 'a "Label: value" line reads fine');
    assert.equal(shownText("For eight people. }; { source: 'erp' }"), 'For eight people.');
  });

  it("never quotes a customer's question, in any case, even with its answer after it", () => {
    for (const text of ['Question: will this fit a 26 cm tin?', 'QUESTION: Will this fit?', 'q: does it come in blue', 'Will this fit? Yes it does.']) {
      assert.equal(quotable(text), false, text);
    }
    assert.equal(shownText('Answer: The liners fit round tins.'), 'The liners fit round tins.');
  });

  it('never starts with the tail of a sentence cut at a chunk edge, nor with a bullet', () => {
    assert.equal(quotable('and the rest of the sentence the chunk cut.', true), false);
    assert.equal(quotable('Baked fresh every morning.', true), false);
    assert.equal(quotable('Baked fresh every morning.'), true);
    assert.equal(shownText('- Our rye bread is vegan.'), 'Our rye bread is vegan.');
    assert.equal(shownText('2) Knead the dough.'), 'Knead the dough.');
  });

  it("completes a sentence a chunk's edge cut from the item's neighbouring chunk, quoting it whole", () => {
    const first = 'Prices rose in many towns. The market is on a par with Oxford and Reading and below a handful of historic';
    // The chunker repeats the end of a chunk at the start of the next one.
    const second = 'below a handful of historic markets: Harrogate, Bath and Tunbridge Wells. Rents followed.';
    assert.equal(joinChunks(first, second), 'Prices rose in many towns. The market is on a par with Oxford and Reading and below a handful of historic markets: Harrogate, Bath and Tunbridge Wells. Rents followed.');
    const whole = 'The market is on a par with Oxford and Reading and below a handful of historic markets: Harrogate, Bath and Tunbridge Wells.';
    assert.deepEqual(chunkSentences(first, undefined, second).map((s) => s.text), ['Prices rose in many towns.', whole]);
    assert.deepEqual(chunkSentences(second, first).map((s) => s.text), [whole, 'Rents followed.']);
    // The chunk before tells that the first sentence was cut; its first letter's case does not.
    assert.deepEqual(chunkSentences(second, first).map((s) => s.cutStart), [true, false]);
    assert.deepEqual(chunkSentences('Rents followed. prices too.', 'Prices rose in many towns.').map((s) => s.cutStart), [false, false]);
    assert.deepEqual(chunkSentences(', baked fresh every morning.').map((s) => s.cutStart), [true]);
    // The words before the chunk's overlap with the one before say whether it starts a sentence, in any case.
    assert.deepEqual(chunkSentences('fits my phone and the case. would buy again', 'works great. fits my phone and the case.').map((s) => s.cutStart), [false, false]);
    assert.deepEqual(chunkSentences('labels.length; i++) { sh.clear(); } done.', 'for (var i = 0; i < labels.length; i++) {').map((s) => s.cutStart)[0], true);
    assert.deepEqual(chunkSentences('We deliver on Saturdays too.', 'Delivery\nWe deliver on Saturdays').map((s) => s.cutStart), [false]);
    // Without an overlap, a long last line that ends no sentence runs on; a heading does not.
    assert.deepEqual(chunkSentences('i<labels.length; i++) { sh.clear(); }', 'function getEmails() { var labels = GmailApp.getUserLabels(); for (var i=0;').map((s) => s.cutStart), [true]);
    assert.deepEqual(chunkSentences('we deliver on saturdays too.', 'Delivery').map((s) => s.cutStart), [false]);
    const item = { id: 1, knowledgeBaseId: 'kb', integrationId: 'i', externalId: '1', sourceType: 'ARTICLE', title: 'Housing', url: null, updatedAt: 0, chunkCount: 2 } as CandidatePassage['item'];
    const terms = weightedTerms('Which markets are below Oxford?', [], () => 2);
    const scored = (before?: string) =>
      scoreSentences([{ item, chunkId: 2, text: second, before, retrieval: 1, itemScore: 1, passageScore: 1 }], terms, questionIntent('x'), 'x');
    // Without a chunk before, the chunk is its item's first: its first sentence is whole, in any case.
    assert.equal(scored().find((s) => s.position === 0)!.quotable, true);
    assert.equal(scored().find((s) => s.position === 0)!.whole, undefined);
    // The decision reads the chunk's part; the answer shows the whole sentence.
    const completed = scored(first).find((s) => s.position === 0)!;
    assert.equal(completed.quotable, false);
    assert.deepEqual(completed.whole, { text: whole, quotable: true });
    assert.equal(selectSentences(scored(first))[0]!.text, whole);
    // Completing the edge does not let through what the chunk's own part may not show.
    const raw = scoreSentences(
      [{ item, chunkId: 2, text: '] and then the markets sync every hour. Done here.', before: 'Set the list to [a, b', retrieval: 1, itemScore: 1, passageScore: 1 }],
      terms, questionIntent('x'), 'x',
    );
    assert.equal(raw.find((s) => s.position === 0)!.whole!.quotable, false);
  });

  const sentence = (text: string, item: number, passage: number): ScoredSentence => ({
    text, item, passage, position: 1, coverage: 1, score: 1, stems: [], quotable: true, namesSubject: true, statesPrice: false, holdsRarest: true,
  });

  it('cites each item once, whichever of its passages a sentence comes from', () => {
    const parts = composeAnswer([sentence('First fact.', 7, 0), sentence('Other item.', 9, 2), sentence('Second passage of the first item.', 7, 1)]);
    assert.deepEqual(parts.map((p) => p.text), ['First fact. [1]', 'Other item. [2]', 'Second passage of the first item. [1]']);
  });

  it('keeps everything shown, markers and spaces included, within the character cap', () => {
    const long = `${'word '.repeat(200)}end.`;
    const parts = composeAnswer([sentence(long, 1, 0), sentence('Another sentence.', 2, 1)], 700);
    const shown = parts.map((p) => p.text).join(' ');
    assert.ok(shown.length <= 700, `${shown.length} characters`);
    assert.match(shown, /word… \[1\]$/);

    // Cut around the question's words, wherever they are in the sentence.
    const late = `${'filler '.repeat(150)}the Shakespeare scholar David Bevington teaches here ${'filler '.repeat(30)}end.`;
    const [part] = composeAnswer([sentence(late, 1, 0)], 700, [{ stem: 'shakespear', word: 'shakespeare', weight: 3 }]);
    assert.ok(part!.text.length <= 700, `${part!.text.length} characters`);
    assert.match(part!.text, /^… filler .*Shakespeare scholar David Bevington teaches here .*end\. \[1\]$/);

    // 345 + 345 + 10 characters of sentences fit 700; with markers and spaces the third does not.
    const exact = composeAnswer([sentence('x'.repeat(345), 1, 0), sentence('y'.repeat(345), 2, 1), sentence('z'.repeat(10), 3, 2)], 700);
    assert.equal(exact.map((p) => p.text).join(' ').length, 699);
    assert.equal(exact.length, 2, 'the third sentence with its marker would pass the cap');

    // A later sentence over the room left is shown by its stretch around the question's words when
    // a third of the cap is left, within the cap.
    const ally = `${'filler '.repeat(20)}the empire allied with Germany ${'filler '.repeat(60)}end.`;
    const terms = [{ stem: 'alli', word: 'ally', weight: 3 }];
    const withLater = composeAnswer([sentence('x'.repeat(300), 1, 0), sentence(ally, 2, 1)], 700, terms);
    const shownLater = withLater.map((p) => p.text).join(' ');
    assert.equal(withLater.length, 2);
    assert.ok(shownLater.length <= 700, `${shownLater.length} characters`);
    assert.match(withLater[1]!.text, /empire allied with Germany .*… \[2\]$/);
    // Not without the question's words in it, nor with less than a third of the cap left.
    assert.equal(composeAnswer([sentence('x'.repeat(300), 1, 0), sentence(ally, 2, 1)], 700, []).length, 1);
    assert.equal(composeAnswer([sentence('x'.repeat(500), 1, 0), sentence(ally, 2, 1)], 700, terms).length, 1);
  });
});
