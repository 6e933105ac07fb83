import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitSentences } from '../../../../../server/retrieval/answer/sentences.ts';

describe('sentences an answer quotes', () => {
  it('keeps a web address whole and still ends sentences at "?", "!" and full-width marks', () => {
    assert.deepEqual(splitSentences('A direct link: https://drive.example.com/uc?export=download&id=F1 works. Is it free? Yes!'), [
      'A direct link: https://drive.example.com/uc?export=download&id=F1 works.',
      'Is it free?',
      'Yes!',
    ]);
    assert.deepEqual(splitSentences('今日は晴れ。明日は雨？はい！'), ['今日は晴れ。', '明日は雨？', 'はい！']);
  });
});
