import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pdfTitle } from '../../../../../server/pipeline/extract/pdf-title.ts';

describe('a PDF title that names the document', () => {
  it('keeps a real title', () => {
    assert.equal(pdfTitle('Spring price list 2026'), 'Spring price list 2026');
    assert.equal(pdfTitle('About our bakery'), 'About our bakery');
  });

  it('drops what a browser or a printer driver filled in', () => {
    for (const filler of ['about:blank', 'file:///C:/Users/anna/prices.html', 'https://shop.example/prices', 'Untitled', 'Document1', '']) {
      assert.equal(pdfTitle(filler), null, filler);
    }
  });

  it("cuts Office's application prefix and the file's extension", () => {
    assert.equal(pdfTitle('Microsoft Word - Preisliste.docx'), 'Preisliste');
    assert.equal(pdfTitle('Microsoft Excel - Stock.xlsx'), 'Stock');
  });
});
