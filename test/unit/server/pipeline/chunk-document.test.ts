import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkDocument } from '../../../../server/pipeline/chunk-document.ts';
import { chunkItem } from '../../../../server/pipeline/chunk.ts';

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
    // Paragraphs are counted through the whole document, section after section.
    assert.deepEqual(item.chunks.map((chunk) => chunk.paragraph), [0, 1, 2]);
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

  it('a passage holds whole paragraphs, or part of one: a long paragraph is cut into passages of its own', () => {
    const paragraph = (tag: string, sentences: number) => Array.from({ length: sentences }, (_, i) => `${tag}${i} holds four words.`).join(' ');
    const text = [paragraph('A', 3), paragraph('B', 14), paragraph('C', 2), paragraph('D', 2)].join('\n\n');
    const item = chunkDocument({ title: 'Doc', sections: [{ headings: [], text }] }, 'doc.md', { maxTokens: 30, overlapTokens: 8, countTokens });
    const tags = item.chunks.map((chunk) => [...new Set(chunk.text.match(/\b[A-D](?=\d)/g))].join(''));
    // A alone (B does not fit after it); B cut in three, overlapping only itself; C and D whole, together.
    assert.deepEqual(tags, ['A', 'B', 'B', 'B', 'CD']);
    assert.ok(item.chunks[2]!.text.startsWith('B'), 'the overlap repeats B within B');
    assert.ok(item.chunks.every((chunk) => chunk.tokenCount <= 30));
    assert.equal(item.chunks[4]!.text, `${paragraph('C', 2)}\n\n${paragraph('D', 2)}`);
    // The three parts of B name B's paragraph; a passage of whole paragraphs names its first.
    assert.deepEqual(item.chunks.map((chunk) => chunk.paragraph), [0, 1, 1, 1, 2]);
    // A pushed item of the same text packs across paragraphs, as before.
    const pushed = chunkItem({ title: 'Doc', text }, { maxTokens: 30, overlapTokens: 8, countTokens });
    assert.ok(pushed.some((chunk) => /A\d/.test(chunk.text) && /B\d/.test(chunk.text)));
  });
});
