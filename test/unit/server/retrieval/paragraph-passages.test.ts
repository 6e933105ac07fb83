import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupByParagraph, joinOverlapping, type ScoredChunk } from '../../../../server/retrieval/paragraph-passages.ts';

const chunk = (id: number, paragraph: number | null, text: string, keyword: number, similarity: number): ScoredChunk<{ id: number }> => ({
  chunk: { id },
  position: id,
  paragraph,
  text,
  keyword,
  similarity,
});

describe('groupByParagraph', () => {
  it('takes the parts of one paragraph as one passage: its whole text, scored and standing as its best part', () => {
    const groups = groupByParagraph([
      chunk(2, 1, 'Second half. It ends here.', 1.5, 0.2),
      chunk(0, 0, 'A short paragraph.', 2, 0.1),
      chunk(1, 1, 'A long paragraph starts. Second half.', 1, 0.4),
      chunk(3, 2, 'Another paragraph.', 0, 0.3),
    ]);
    assert.deepEqual(
      groups.map((g) => ({ id: g.best.id, first: g.first.id, position: g.position, text: g.text, keyword: g.keyword, similarity: g.similarity, fromDocument: g.fromDocument })),
      [
        { id: 0, first: 0, position: 0, text: 'A short paragraph.', keyword: 2, similarity: 0.1, fromDocument: true },
        // Part 1 scores 1 + 0.4, part 2 1.5 + 0.2: part 2 stands for the paragraph, which keeps each
        // score's best and starts where part 1 does; the overlap is written once.
        { id: 2, first: 1, position: 1, text: 'A long paragraph starts. Second half. It ends here.', keyword: 1.5, similarity: 0.4, fromDocument: true },
        { id: 3, first: 3, position: 3, text: 'Another paragraph.', keyword: 0, similarity: 0.3, fromDocument: true },
      ],
    );
  });

  it('leaves chunks without a paragraph (pushed items) as they are, each a passage of its own', () => {
    const chunks = [chunk(0, null, 'One.', 1, 0.5), chunk(1, null, 'Two.', 3, 0.1)];
    const groups = groupByParagraph(chunks);
    assert.deepEqual(
      groups.map((g) => [g.best.id, g.text, g.keyword, g.similarity, g.fromDocument]),
      [
        [0, 'One.', 1, 0.5, false],
        [1, 'Two.', 3, 0.1, false],
      ],
    );
  });
});

describe('joinOverlapping', () => {
  it('writes the repeated overlap once, and joins parts that do not overlap with a space', () => {
    assert.equal(joinOverlapping('The first part ends with these words here.', 'with these words here. Then more.'), 'The first part ends with these words here. Then more.');
    assert.equal(joinOverlapping('First sentence.', 'Second sentence.'), 'First sentence. Second sentence.');
  });
});
