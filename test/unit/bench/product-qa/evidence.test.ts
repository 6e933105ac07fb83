/**
 * How the product-QA bench decides whether an answer quotes evidence labelled answering
 * (bench/product-qa/evidence.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Candidate } from '../../../../bench/product-qa/dataset.ts';
import { judgeEvidence, matchQuote, quotedSentences } from '../../../../bench/product-qa/evidence.ts';

const CANDIDATES: Candidate[] = [
  { text: 'compatible_devices:  { value:"apple ipad 3" }; { value:"apple ipad air" }', source: 'attribute', label: 1 },
  { text: 'the case is made of soft blue silicone and protects against drops.', source: 'bullet', label: 0 },
  { text: 'i use it every day with my ipad air and it fits perfectly', source: 'review', label: 1 },
];

describe('quotedSentences', () => {
  it('splits at citation markers and sentence ends and drops the markers', () => {
    assert.deepEqual(quotedSentences('It fits perfectly. Every day. [1] Compatible devices: apple ipad air [2] ok'), [
      { text: 'It fits perfectly.', citation: 1 },
      { text: 'Every day.', citation: 1 },
      { text: 'Compatible devices: apple ipad air', citation: 2 },
    ]);
  });
});

describe('matchQuote', () => {
  it('finds the candidate an extractive answer quotes, attributes read as "Label: value"', () => {
    assert.equal(matchQuote('Compatible devices: apple ipad 3, apple ipad air', CANDIDATES), CANDIDATES[0]);
    assert.equal(matchQuote('The case is made of soft blue silicone', CANDIDATES), CANDIDATES[1]);
  });
  it('matches nothing when too few of the quoted words are in any candidate', () => {
    assert.equal(matchQuote('Shipping takes three days to Canada', CANDIDATES), null);
  });
});

describe('judgeEvidence', () => {
  it('is answering when a quoted sentence lies in a candidate labelled answering', () => {
    assert.equal(judgeEvidence('i use it every day with my ipad air and it fits perfectly [1]', CANDIDATES).answering, true);
  });
  it('is not answering when the answering words are quoted from another product', () => {
    const answer = 'Product B2: i use it every day with my ipad air and it fits perfectly [1] The case is made of soft blue silicone [2]';
    const citations = [
      { number: 1, externalId: 'B2' },
      { number: 2, externalId: 'B1' },
    ];
    assert.deepEqual(judgeEvidence(answer, CANDIDATES, { citations, product: 'B1' }), { quoted: 2, matched: 1, answering: false });
    assert.equal(judgeEvidence(answer, CANDIDATES, { citations, product: 'B2' }).answering, true);
  });
  it('is not answering when only non-answering or unknown text is quoted', () => {
    const verdict = judgeEvidence('The case is made of soft blue silicone and protects against drops. [1] Ships in two days. [2]', CANDIDATES);
    assert.deepEqual(verdict, { quoted: 2, matched: 1, answering: false });
  });
});
