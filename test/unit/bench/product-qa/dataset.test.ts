/**
 * The product-QA bench's reading of hetPQA (bench/product-qa/dataset.ts): attribute candidates
 * read as a key and a readable value, products split into folds by a stable hash, questions
 * gathered with their labelled candidates, one item per product.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type EvidenceRow, foldOf, parseAttribute, productItems, questionsOf, REPORT_PERCENT } from '../../../../bench/product-qa/dataset.ts';

describe('parseAttribute', () => {
  it('reads a list of values', () => {
    assert.deepEqual(parseAttribute('compatible_devices:  { value:"apple ipad 3" }; { value:"apple ipad" }; { value:"apple ipad air" }'), {
      key: 'compatible_devices',
      value: 'apple ipad 3, apple ipad, apple ipad air',
    });
  });
  it('reads booleans as booleans and bare words with their underscores as spaces', () => {
    assert.deepEqual(parseAttribute('is_electric:  { value:false }'), { key: 'is_electric', value: false });
    assert.deepEqual(parseAttribute('platform:  { value:nintendo_3ds }'), { key: 'platform', value: 'nintendo 3ds' });
  });
  it('keeps a value with its own unit and drops the normalized copy', () => {
    assert.deepEqual(parseAttribute('item_weight:  { unit:pounds, normalized_value:{ unit:pounds, value:13. }, value:13. }'), {
      key: 'item_weight',
      value: '13 pounds',
    });
  });
  it('reads a value made of named parts part by part', () => {
    const dims = parseAttribute(
      'item_dimensions:  { width:{ unit:inches, normalized_value:{ unit:inches, value:42. }, value:42. }, length:{ unit:inches, value:28. } }',
    );
    assert.deepEqual(dims, { key: 'item_dimensions', value: 'width 42 inches, length 28 inches' });
  });
  it('reads standardized values beside the value as the value alone', () => {
    assert.deepEqual(parseAttribute('color:  { standardized_values:[ "black" ], value:"charcoal" }'), { key: 'color', value: 'charcoal' });
  });
  it('gives null for text that is not an attribute', () => {
    assert.equal(parseAttribute('no colon here'), null);
    assert.equal(parseAttribute('brand:  '), null);
  });
});

describe('foldOf', () => {
  it('gives a product the same fold every time and reports about REPORT_PERCENT of products', () => {
    const asins = Array.from({ length: 2000 }, (_, i) => `B0${String(i).padStart(8, '0')}`);
    assert.deepEqual(asins.map(foldOf), asins.map(foldOf));
    const reported = asins.filter((a) => foldOf(a) === 'report').length / asins.length;
    assert.ok(Math.abs(reported - REPORT_PERCENT / 100) < 0.03, `reported share ${reported}`);
  });
});

const ROWS: EvidenceRow[] = [
  { qid: '1', asin: 'A', question: 'does it fit an ipad air?', candidate: 'compatible_devices:  { value:"apple ipad air" }', label: 1, source: 'attribute' },
  { qid: '1', asin: 'A', question: 'does it fit an ipad air?', candidate: 'a sturdy case in blue', label: 0, source: 'bullet' },
  { qid: '2', asin: 'A', question: 'what colour is it?', candidate: 'a sturdy case in blue', label: 1, source: 'bullet' },
  { qid: '3', asin: 'B', question: 'is it waterproof?', candidate: 'great value for money', label: 0, source: 'review' },
];

describe('questionsOf and productItems', () => {
  it('gathers each question once with its candidates, answerable when one is labelled answering', () => {
    const qs = questionsOf(ROWS);
    assert.deepEqual(qs.map((q) => [q.qid, q.candidates.length, q.answerable]), [['1', 2, true], ['2', 1, true], ['3', 1, false]]);
  });
  it('makes one item per product, each candidate once, attributes as sourceData and bullets as "- " lines', () => {
    const items = productItems(ROWS);
    assert.equal(items.length, 2);
    const a = items.find((i) => i.externalId === 'A')!;
    assert.equal(a.content, '- a sturdy case in blue');
    assert.deepEqual(a.sourceData, { compatible_devices: 'apple ipad air' });
    assert.match(a.url, /^https:\/\/shop\.example\.com\/products\/a$/);
  });
  it('keeps both values of an attribute a product lists in two candidates', () => {
    const rows: EvidenceRow[] = [
      { qid: '9', asin: 'C', question: 'what size?', candidate: 'size:  { value:"small" }', label: 0, source: 'attribute' },
      { qid: '9', asin: 'C', question: 'what size?', candidate: 'size:  { value:"medium" }', label: 1, source: 'attribute' },
      { qid: '9', asin: 'C', question: 'what size?', candidate: 'size:  { value:"small" }', label: 0, source: 'attribute' },
    ];
    assert.deepEqual(productItems(rows)[0]!.sourceData, { size: 'small, medium' });
  });
});
