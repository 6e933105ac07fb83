import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flagLine } from '../../../../../server/pipeline/text/source-data-rules.ts';

describe('flags of sourceData', () => {
  it('reads a flag describing the product as "Label: yes/no", and leaves CMS switches out', () => {
    assert.equal(flagLine('dishwasher_safe', false), 'Dishwasher safe: no');
    assert.equal(flagLine('is_heat_sensitive', true), 'Heat sensitive: yes');
    assert.equal(flagLine('glutenFree', true), 'Gluten free: yes');
    assert.equal(flagLine('in_stock', false), 'Availability: Out of stock');
    assert.equal(flagLine('on_sale', false), null);
    for (const key of ['featured', 'is_featured', 'is_active', 'visible', 'variation', 'published']) assert.equal(flagLine(key, true), null, key);
  });
});
