import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VisitorCitation } from '../../../common/contract/widget.ts';
import { WIDGET_TEXTS } from '../../../common/contract/widget-texts.ts';
import { citationPlace } from '../../../widget/src/messages.ts';

const faqCitation = (section: string): VisitorCitation =>
  ({ number: 1, title: 'Sonnenbäckerei FAQ', url: null, section }) as VisitorCitation;

describe('the widget\'s sources list', () => {
  it('does not repeat a document\'s title when its top heading is the title', () => {
    // Seen live: "Sonnenbäckerei FAQ, Sonnenbäckerei FAQ › Can I bring my dog?".
    assert.equal(citationPlace(faqCitation('Sonnenbäckerei FAQ › Can I bring my dog?'), WIDGET_TEXTS.en), ', Can I bring my dog?');
  });

  it('names a PDF page in the widget\'s language', () => {
    const citation = { number: 1, title: 'Preisliste', url: null, page: 3 } as VisitorCitation;
    assert.equal(WIDGET_TEXTS.de.page, 'Seite');
    assert.equal(citationPlace(citation, WIDGET_TEXTS.de), ', Seite 3');
  });
});
