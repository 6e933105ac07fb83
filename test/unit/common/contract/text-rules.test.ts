import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { identifier, pushedIdentifier, quoteName } from '../../../../common/contract/text-rules.ts';

describe('identifier: what may name a knowledge base, an integration or an item', () => {
  it('refuses each bidirectional embedding, override and isolate, saying so', () => {
    for (let code = 0x202a; code <= 0x2069; code = code === 0x202e ? 0x2066 : code + 1) {
      const id = `rtl${String.fromCodePoint(code)}gpj.md`;
      const result = identifier().safeParse(id);
      assert.equal(result.success, false, `U+${code.toString(16)}`);
      assert.match(result.error!.issues[0]!.message, /bidirectional controls/);
      assert.equal(pushedIdentifier().safeParse(id).success, false);
    }
  });

  it('takes right-to-left letters, marks that do not reorder, and the neighbours of the refused range', () => {
    for (const id of ['שעות-פתיחה', 'ساعات.md', 'a\u200Fb', 'a\u2065b', 'a\u206Ab']) {
      assert.equal(identifier().safeParse(id).success, true, JSON.stringify(id));
    }
  });
});

describe('quoteName: a name as a refusal may show it', () => {
  it('writes bidirectional controls as escapes, so the message reads as what was sent', () => {
    assert.equal(quoteName('rtl\u202Egpj.md'), '"rtl\\u202Egpj.md"');
    assert.equal(quoteName('a\u2066b\u2069'), '"a\\u2066b\\u2069"');
    assert.equal(quoteName('plain name.pdf'), '"plain name.pdf"');
  });
});
