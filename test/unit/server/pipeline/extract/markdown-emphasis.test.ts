import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractMarkdown } from '../../../../../server/pipeline/extract/markdown.ts';
import { escapeEmphasisFloods, MAX_EMPHASIS_RUNS_PER_BLOCK } from '../../../../../server/pipeline/extract/markdown-emphasis.ts';

describe('Markdown: blocks flooded with emphasis markers are read as plain text', () => {
  it('a block over the limit gets every marker escaped; blocks under it, code and escapes are left as they are', () => {
    const input = [
      'Some **bold** words.',
      '',
      '*a*a*a_b_',
      'and \\* one',
      '',
      '```',
      '*a*a*a*a*a',
      '```',
      '',
      '- *x*y*z*w*',
      '- *k*',
    ].join('\n');
    assert.equal(
      escapeEmphasisFloods(input, 4),
      [
        'Some **bold** words.',
        '',
        '\\*a\\*a\\*a\\_b\\_',
        'and \\* one',
        '',
        '```',
        '*a*a*a*a*a',
        '```',
        '',
        '- \\*x\\*y\\*z\\*w\\*',
        '- *k*',
      ].join('\n'),
      'the flooded paragraph and list item escaped (the list marker kept); the bold, the code, the short item untouched',
    );
  });

  it('a file with few markers in all is returned as it is', () => {
    const input = 'A *short* note with _some_ emphasis.\n';
    assert.equal(escapeEmphasisFloods(input), input);
  });

  it('a tight list of many bold names stays parsed: each item is a block of its own', () => {
    const list = Array.from({ length: MAX_EMPHASIS_RUNS_PER_BLOCK }, (_, i) => `- **Item ${i}** costs ${i} euros`).join('\n');
    assert.equal(escapeEmphasisFloods(list), list);
    const text = extractMarkdown(list).sections[0]!.text;
    assert.ok(text.startsWith('- Item 0 costs 0 euros\n- Item 1 costs 1 euros'), text.slice(0, 80));
  });

  it('a 60 KB paragraph of "*a" is extracted, its text kept character for character', () => {
    const flood = '*a'.repeat(30_000);
    const document = extractMarkdown(`# Flood\n\n${flood}\n\nAfter the flood, *real* emphasis.\n`);
    assert.deepEqual(
      document.sections.map((section) => section.text),
      [`${flood}\n\nAfter the flood, real emphasis.`],
    );
  });
});
