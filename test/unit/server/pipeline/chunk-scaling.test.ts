import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkItem } from '../../../../server/pipeline/chunk.ts';
import { normalizeItem } from '../../../../server/pipeline/normalize.ts';

/**
 * Chunking's work grows linearly with the text: the characters it hands the token counter (the
 * costly part: USE-lite's SentencePiece encodes each) per character of text stay the same from
 * 20,000 to 100,000 characters, for prose and for words with no sentence end. Counted, not timed:
 * bench/item-size-scaling.ts has the times (docs/benchmarks.md).
 */
const WORDS = ['bread', 'flour', 'oven', 'morning', 'customer', 'delivery', 'warranty', 'shop', 'baker', 'crust'];

function prose(characters: number): string {
  const parts: string[] = [];
  for (let i = 0, length = 0; length < characters; i++) {
    const sentence = `The ${WORDS[i % 10]} of the ${WORDS[(i * 7) % 10]} is ready at ${i} near the ${WORDS[(i * 3) % 10]}. ${i % 6 === 5 ? '\n\n' : ''}`;
    parts.push(sentence);
    length += sentence.length;
  }
  return parts.join('').slice(0, characters);
}

function noSentenceEnd(characters: number): string {
  const parts: string[] = [];
  for (let i = 0, length = 0; length < characters; i++) {
    const word = `${WORDS[(i * 3) % 10]}${i % 89} `;
    parts.push(word);
    length += word.length;
  }
  return parts.join('').slice(0, characters).trim();
}

/** Characters the chunker hands its token counter, per character of the item's text. */
function counterWorkPerCharacter(text: string): number {
  let counted = 0;
  const countTokens = (piece: string) => {
    counted += piece.length;
    return Math.ceil((piece.match(/\S+/g)?.length ?? 0) * 1.3) + 2;
  };
  const item = normalizeItem('ARTICLE', { title: 'A long page', content: text });
  const chunks = chunkItem(item, { maxTokens: 128, overlapTokens: 32, countTokens });
  assert.ok(chunks.length > 10);
  return counted / item.text.length;
}

describe('chunking scales linearly with the text', () => {
  for (const [kind, make] of [
    ['prose', prose],
    ['words without a sentence end', noSentenceEnd],
  ] as const) {
    it(`${kind}: the token counter's work per character is the same at 20,000, 60,000 and 100,000 characters`, () => {
      const [small, middle, large] = [20_000, 60_000, 100_000].map((n) => counterWorkPerCharacter(make(n)));
      assert.ok(small! < 6, `${small} characters counted per character of text`);
      for (const [n, perCharacter] of [[60_000, middle!], [100_000, large!]] as const) {
        assert.ok(perCharacter <= small! * 1.1, `${kind}: ${perCharacter.toFixed(2)} characters counted per character at ${n} against ${small!.toFixed(2)} at 20,000`);
      }
    });
  }
});
