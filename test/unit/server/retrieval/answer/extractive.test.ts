import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ScoredSentence, selectSentences } from '../../../../../server/retrieval/answer/extractive.ts';
import { quotable } from '../../../../../server/retrieval/answer/quotable.ts';

describe('sentences an answer is made of', () => {
  const scored = (text: string, score: number, stems: string[], item = 1): ScoredSentence => ({
    text, passage: 0, position: 1, coverage: score, score, stems, item, quotable: quotable(text), namesSubject: true, statesPrice: false, holdsRarest: true,
  });

  it('leaves out a sentence that asks, even when it matches the question best', () => {
    const chosen = selectSentences([
      scored('How do I delete my account?', 1, ['delet', 'account']),
      scored('Open Settings, then choose Delete account.', 0.9, ['open', 'setting', 'choos', 'delet', 'account']),
      scored('The account is gone after two weeks.', 0.8, ['gone', 'two', 'week']),
    ]);
    assert.deepEqual(chosen.map((s) => s.text), ['Open Settings, then choose Delete account.', 'The account is gone after two weeks.']);
  });

  it('quotes nothing when every sentence asks: a question is never shown as an answer', () => {
    const chosen = selectSentences([scored('Have you tried Settings?', 1, ['tri', 'setting']), scored('Is it in the menu?', 0.9, ['menu'])]);
    assert.deepEqual(chosen, []);
  });
});
