import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asksForFact, expectedAnswerType } from '../../../../../server/retrieval/answer/answer-types.ts';

describe('the kind of question', () => {
  it('asksForFact: wh-questions ask for a fact, even with the wh-word inside', () => {
    for (const q of [
      'Who did the Panthers beat in the NFC Championship Game?',
      'What was the theme of Super Bowl 50?',
      'Super Bowl 50 decided the NFL champion for what season?',
      'How many times has the South Florida/Miami area hosted the Super Bowl?',
      'Why does youtube cease buffering a video as soon as it is paused?',
      'Which bread is vegan?',
    ]) assert.equal(asksForFact(q), true, q);
  });

  it('asksForFact: how-to, yes/no, requests and bare statements do not', () => {
    for (const q of [
      'How do I link two cells from different google spreadsheet documents.',
      'How to remove facebook account?',
      'Can I write google docs using markdown.',
      'Is it possible to download a youtube video?',
      "I'd like to delete a list in trello, what is the way?",
      'What is the best way to export my contacts?',
      'Splitting conversations in gmail.',
      'Do you deliver on Sundays?',
    ]) assert.equal(asksForFact(q), false, q);
  });

  it('expectedAnswerType is unchanged by the kind: a how-long question asks a duration', () => {
    assert.equal(expectedAnswerType('How long does delivery take?'), 'duration');
    assert.equal(asksForFact('How long does delivery take?'), true);
  });
});
