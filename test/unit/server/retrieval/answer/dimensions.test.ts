import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answersDimension, askedDimension } from '../../../../../server/retrieval/answer/dimensions.ts';

describe('the dimension a "how tall/heavy/long…" question asks for', () => {
  it('maps the question’s adjective to the attribute labels that measure it', () => {
    assert.deepEqual(askedDimension('How tall is the lamp?'), ['height']);
    assert.deepEqual(askedDimension('how heavy is this'), ['weight']);
    assert.deepEqual(askedDimension('How wide is the shelf?'), ['width']);
    assert.deepEqual(askedDimension('What colour is it?'), []);
  });

  it('reads a "Label: value" line naming the dimension as its answer, and nothing else', () => {
    assert.equal(answersDimension('How tall is the lamp?', 'Height: 45 cm'), true);
    assert.equal(answersDimension('how high does the ladder go', 'Max standing height: 2.1 m'), true);
    assert.equal(answersDimension('How heavy is it?', 'Weight: 3 kg'), true);
    assert.equal(answersDimension('how long do the tulips keep', 'Shelf life: 5 days'), true);
    assert.equal(answersDimension('How long does the session take?', 'Duration: 45 minutes'), true);
    assert.equal(answersDimension('How big is the jar?', 'Size: 500 ml'), true);
    // Another attribute, a sentence without a label, or a question with no dimension: no.
    assert.equal(answersDimension('How tall is the lamp?', 'Weight: 3 kg'), false);
    assert.equal(answersDimension('How tall is the lamp?', 'The lamp is made of brass.'), false);
    assert.equal(answersDimension('What does it cost?', 'Height: 45 cm'), false);
  });
});
