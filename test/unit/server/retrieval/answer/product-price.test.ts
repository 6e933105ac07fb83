import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { priceOf } from '../../../../../server/retrieval/answer/ask-question.ts';

describe("priceOf: a product card's price from the item's sourceData", () => {
  it('reads a number with two decimals, a string as written, and adds the currency once', () => {
    assert.equal(priceOf({ price: 49, currency: 'EUR' }), '49.00 EUR');
    assert.equal(priceOf({ price: 3.2 }), '3.20');
    assert.equal(priceOf({ price: '29.00 EUR', currency: 'EUR' }), '29.00 EUR');
    assert.equal(priceOf({ price: ' £12 ' }), '£12');
  });

  it('is null without a usable price', () => {
    for (const data of [null, { cost: 5 }, { price: '  ' }, { price: { amount: 5 } }]) {
      assert.equal(priceOf(data), null, JSON.stringify(data));
    }
  });
});
