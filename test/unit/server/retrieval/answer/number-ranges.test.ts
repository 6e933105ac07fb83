import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CandidatePassage, questionIntent, scoreSentences } from '../../../../../server/retrieval/answer/extractive.ts';
import { inStatedRange } from '../../../../../server/retrieval/answer/number-ranges.ts';
import { weightedTerms } from '../../../../../server/retrieval/answer/question-terms.ts';

describe('a number inside a range the content states (number-ranges.ts)', () => {
  it('holds a postcode or year between the range\'s ends of as many digits', () => {
    assert.equal(inStatedRange('04109', 'We deliver to the postcodes 04103 to 04357.'), true);
    assert.equal(inStatedRange('04103', 'postcodes 04103–04357'), true);
    assert.equal(inStatedRange('10997', 'We deliver to the postcodes 04103 to 04357.'), false);
    assert.equal(inStatedRange('1993', 'from 1990 until 1995'), true);
    // Ends of another length, short numbers and words are no such range.
    assert.equal(inStatedRange('4200', 'postcodes 04103 to 04357'), false);
    assert.equal(inStatedRange('38', 'sizes 36 to 42'), false);
    assert.equal(inStatedRange('deliver', 'postcodes 04103 to 04357'), false);
  });

  it('lets the sentence stating the range cover the number asked about', () => {
    const delivery: CandidatePassage = {
      item: { id: 1, knowledgeBaseId: 'kb', integrationId: 'i', externalId: '1', sourceType: 'ARTICLE', title: 'Delivery', url: null, updatedAt: 0, chunkCount: 1 } as CandidatePassage['item'],
      chunkId: 1, text: 'Delivery costs 6.90 EUR. We deliver within Leipzig, to the postcodes 04103 to 04357.', retrieval: 1, itemScore: 1, passageScore: 1,
    };
    const question = 'Do you deliver to 04109?';
    const [best] = scoreSentences([delivery], weightedTerms(question, [], () => 1), questionIntent(question), question);
    assert.match(best!.text, /04103 to 04357/);
    assert.equal(best!.coverage, 1);
  });
});
