import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeOriginal, inlineDisposition } from '../../../../server/domain/original-file.ts';

const text = (s: string) => new TextEncoder().encode(s);
const PDF = text('%PDF-1.7\n%\u00e2\u00e3\n1 0 obj');
const ZIP = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]);

describe('describeOriginal: how an uploaded file is served', () => {
  it('knows a PDF and a Word document by their bytes, whatever their names say', () => {
    assert.deepEqual(describeOriginal(PDF, ['catalogue/price-list.pdf', 'Price list 2026']), { kind: 'pdf', contentType: 'application/pdf', fileName: 'price-list.pdf' });
    assert.deepEqual(describeOriginal(PDF, ['price-list', 'Price list 2026']), { kind: 'pdf', contentType: 'application/pdf', fileName: 'price-list.pdf' });
    assert.deepEqual(describeOriginal(ZIP, ['policy-2026', 'policy.docx']), {
      kind: 'docx',
      contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      fileName: 'policy.docx',
    });
  });

  it('takes the kind of a text file from the first name that has one, else plain text', () => {
    assert.equal(describeOriginal(text('# Care'), ['guide/care.md', 'Care']).contentType, 'text/markdown; charset=utf-8');
    assert.equal(describeOriginal(text('<h1>x</h1>'), ['faq', 'faq.htm']).contentType, 'text/html; charset=utf-8');
    assert.deepEqual(describeOriginal(text('<h1>x</h1>'), ['faq', 'Shop FAQ']), { kind: 'text', contentType: 'text/plain; charset=utf-8', fileName: 'faq.txt' });
    // A text file named .pdf is not served as a PDF.
    assert.equal(describeOriginal(text('just text'), ['notes.pdf', 'Notes']).contentType, 'text/plain; charset=utf-8');
  });
});

describe('inlineDisposition', () => {
  it('keeps a plain name, and writes quotes, separators and other characters as _ beside the exact name encoded', () => {
    assert.equal(inlineDisposition('price-list.pdf'), `inline; filename="price-list.pdf"; filename*=UTF-8''price-list.pdf`);
    assert.equal(inlineDisposition('a"b;\r\nc/ü (1).pdf'), `inline; filename="a_b___c__ _1_.pdf"; filename*=UTF-8''a%22b%3B%0D%0Ac%2F%C3%BC%20%281%29.pdf`);
  });
});
