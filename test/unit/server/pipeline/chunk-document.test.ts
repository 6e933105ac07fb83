import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkDocument } from '../../../../server/pipeline/chunk-document.ts';

const countTokens = (text: string) => text.split(/\s+/).filter(Boolean).length;
const options = { maxTokens: 40, overlapTokens: 0, countTokens };

describe('chunkDocument', () => {
  it('chunks each section alone, with its page or heading path, the path carried into what is embedded', () => {
    const item = chunkDocument(
      {
        title: 'Policy',
        sections: [
          { headings: ['Returns'], text: 'Within 30 days.' },
          { headings: ['Returns', 'Damaged goods'], text: 'Replaced free of charge.' },
          { page: 4, headings: [], text: 'A page of a PDF.' },
        ],
      },
      'policy.docx',
      options,
    );
    assert.equal(item.title, 'Policy');
    assert.deepEqual(
      item.chunks.map(({ index, text, page, section }) => ({ index, text, page, section })),
      [
        { index: 0, text: 'Within 30 days.', page: undefined, section: 'Returns' },
        { index: 1, text: 'Replaced free of charge.', page: undefined, section: 'Returns › Damaged goods' },
        { index: 2, text: 'A page of a PDF.', page: 4, section: undefined },
      ],
    );
    assert.equal(item.chunks[1]!.embedText, 'Policy › Returns › Damaged goods\nReplaced free of charge.');
    assert.equal(item.text, 'Returns\n\nWithin 30 days.\n\nDamaged goods\n\nReplaced free of charge.\n\nA page of a PDF.');
  });

  it('the file name is the title of a document without one; a long section is cut within the budget', () => {
    const long = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const item = chunkDocument({ title: null, sections: [{ page: 2, headings: [], text: long }] }, 'notes.txt', options);
    assert.equal(item.title, 'notes.txt');
    assert.ok(item.chunks.length > 1);
    for (const chunk of item.chunks) {
      assert.equal(chunk.page, 2);
      assert.ok(chunk.tokenCount <= options.maxTokens);
    }
  });
});
