import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { citationPlace } from '../../../common/citation-place.ts';

describe('citationPlace', () => {
  it('names the page of a PDF passage, in the reader\'s word for page', () => {
    assert.equal(citationPlace({ title: 'Price list', page: 2 }), ', page 2');
    assert.equal(citationPlace({ title: 'Preisliste', page: 2, section: 'ignored' }, 'Seite'), ', Seite 2');
  });

  it('says nothing for a pushed item, which has neither page nor section', () => {
    assert.equal(citationPlace({ title: 'Opening hours' }), '');
    assert.equal(citationPlace({ title: 'Opening hours', section: null }), '');
    assert.equal(citationPlace({ title: 'Opening hours', section: '  ' }), '');
  });

  it('leaves out a top heading that repeats the title (a Markdown FAQ whose # heading is its title)', () => {
    assert.equal(citationPlace({ title: 'Sonnenbäckerei FAQ', section: 'Sonnenbäckerei FAQ › Can I bring my dog?' }), ', Can I bring my dog?');
    assert.equal(citationPlace({ title: 'Bakery FAQ', section: 'bakery faq › Delivery › Prices' }), ', Delivery › Prices');
    assert.equal(citationPlace({ title: 'Bakery FAQ', section: 'Bakery FAQ' }), '');
  });

  it('keeps every heading when the path does not start with the title', () => {
    assert.equal(citationPlace({ title: 'Policies', section: 'Returns › Damaged goods' }), ', Returns › Damaged goods');
    assert.equal(citationPlace({ title: 'Returns', section: 'Returns policy › Damaged goods' }), ', Returns policy › Damaged goods');
    assert.equal(citationPlace({ title: 'FAQ › Old', section: 'Delivery' }), ', Delivery');
  });
});
