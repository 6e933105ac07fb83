import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getDocumentProxy } from 'unpdf';
import { pageImages, toGrey } from '../../../../../server/pipeline/extract/page-images.ts';
import { portableGreyMap } from '../../../../../server/pipeline/extract/ocr.ts';
import { pdfFile } from '../../../../helpers/document-fixtures.ts';
import { scannedTextPdf } from '../../../../helpers/scanned-fixtures.ts';

async function firstPageImages(bytes: Buffer) {
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, disableFontFace: true, verbosity: 0 });
  try {
    return await pageImages(await pdf.getPage(1));
  } finally {
    await pdf.destroy();
  }
}

const inkShare = (pixels: Uint8Array) => pixels.filter((p) => p < 128).length / pixels.length;

describe('the pictures of a PDF page, as grey levels for text recognition', () => {
  it('a scanned page is one picture at the scan resolution, mostly paper with some ink', async () => {
    const [image, ...rest] = await firstPageImages(await scannedTextPdf([['Opening hours: nine to five on weekdays.']], { dpi: 100 }));
    assert.equal(rest.length, 0);
    assert.deepEqual([image!.width, image!.height], [827, 1169], 'A4 at 100 dpi');
    const ink = inkShare(image!.pixels);
    assert.ok(ink > 0.0005 && ink < 0.05, `ink ${ink}`);
  });

  it('a 1-bit black-and-white scan keeps its polarity (paper white, text black)', async () => {
    const [image] = await firstPageImages(await scannedTextPdf([['Opening hours: nine to five on weekdays.']], { dpi: 100, colour: 'bilevel' }));
    assert.deepEqual([image!.width, image!.height], [827, 1169]);
    const ink = inkShare(image!.pixels);
    assert.ok(ink > 0.0005 && ink < 0.05, `ink ${ink}: an inverted picture would be mostly black`);
  });

  it('a page of text has no pictures', async () => {
    assert.deepEqual(await firstPageImages(await pdfFile([['Only text here.']])), []);
  });

  it('pdf.js pixel layouts become grey levels: 1-bit rows (1 white), RGB by luma, transparent RGBA as paper', () => {
    // 10 pixels wide: two bytes a row, the last 6 bits padding.
    assert.deepEqual([...toGrey({ width: 10, height: 1, kind: 1, data: new Uint8Array([0b10100000, 0b01000000]) })!.pixels], [255, 0, 255, 0, 0, 0, 0, 0, 0, 255]);
    assert.deepEqual([...toGrey({ width: 2, height: 1, kind: 2, data: new Uint8Array([255, 255, 255, 255, 0, 0]) })!.pixels], [255, 76]);
    assert.deepEqual([...toGrey({ width: 2, height: 1, kind: 3, data: new Uint8Array([0, 0, 0, 0, 0, 0, 0, 255]) })!.pixels], [255, 0]);
    assert.equal(toGrey({ width: 4, height: 4, kind: 2, data: new Uint8Array(10) }), null, 'fewer bytes than the size says');
    assert.equal(toGrey({ width: 4, height: 4, kind: 9, data: new Uint8Array(64) }), null, 'a layout pdf.js does not make');
  });

  it('a picture goes to the recogniser as a binary PGM: its header, then one byte a pixel', () => {
    const pgm = portableGreyMap({ width: 3, height: 2, pixels: new Uint8Array([0, 1, 2, 3, 4, 5]) });
    assert.equal(pgm.subarray(0, 11).toString('latin1'), 'P5\n3 2\n255\n');
    assert.deepEqual([...pgm.subarray(11)], [0, 1, 2, 3, 4, 5]);
  });
});
