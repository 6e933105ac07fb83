import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TokenCounter } from '../../../../server/embedders/embedder.ts';
import { chunkItem } from '../../../../server/pipeline/chunk.ts';

/** As in the unit test of chunk.ts: a WordPiece-like cost, one token per 4 characters of a word and 2 per call. */
const countWordPieces: TokenCounter = (text) =>
  2 + (text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).reduce((sum, word) => sum + Math.ceil(word.length / 4), 0);

/** Sentences of `size` unique capitalized words. */
let nextWord = 0;
function sentence(size: number, end = '.'): string {
  return `${Array.from({ length: size }, () => `W${nextWord++}`).join(' ')}${end}`;
}

describe('chunkItem at scale', () => {
  it('chunks a million characters quickly with a cheap counter', (t) => {
    const cases = {
      prose: Array.from({ length: 1_800 }, () => Array.from({ length: 8 }, () => sentence(10)).join(' ')).join('\n\n'),
      'one endless sentence': 'lorem ipsum dolor sit amet '.repeat(37_000),
      'no spaces at all': 'x'.repeat(1_000_000),
    };
    for (const [name, text] of Object.entries(cases)) {
      const started = performance.now();
      const chunks = chunkItem({ title: 'Big', text }, { maxTokens: 128, overlapTokens: 20, countTokens: countWordPieces });
      const ms = performance.now() - started;
      t.diagnostic(`${name}: ${text.length} chars → ${chunks.length} chunks in ${ms.toFixed(0)} ms`);
      assert.ok(chunks.every((c) => c.tokenCount <= 128));
      assert.ok(ms < 5_000, `${name} took ${ms} ms`);
    }
  });
});
