import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatSynonymLines, parseSynonymLines } from '../../../../common/contract/synonyms.ts';

describe('synonyms as lines of text', () => {
  it('reads multi-way and one-way lines, skipping notes and blank lines, and writes them back', () => {
    const text = '# furniture\n\nSofa, couch ,settee\nhoodie => sweatshirt, jumper\r\nT-shirt, tee\n';
    const { sets, errors } = parseSynonymLines(text);
    assert.deepEqual(errors, []);
    assert.deepEqual(sets, [
      { synonyms: ['sofa', 'couch', 'settee'] },
      { root: 'hoodie', synonyms: ['sweatshirt', 'jumper'] },
      { synonyms: ['t shirt', 'tee'] },
    ]);
    assert.equal(formatSynonymLines(sets), 'sofa, couch, settee\nhoodie => sweatshirt, jumper\nt shirt, tee');
    assert.deepEqual(parseSynonymLines(formatSynonymLines(sets)).sets, sets);
  });

  it('names the line of every refusal', () => {
    const { errors } = parseSynonymLines('sofa\nok, fine\na => b => c\nx =>\nsofa, , couch');
    assert.deepEqual(errors, [
      'Line 1: A multi-way set (no root) needs at least two terms.',
      'Line 3: one "=>" at most (root => synonyms).',
      'Line 4: A term must hold a letter or a digit (empty terms are refused).',
      'Line 5: A term must hold a letter or a digit (empty terms are refused).',
    ]);
  });
});
