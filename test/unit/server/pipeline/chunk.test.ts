import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { chunkItem } from '../../../../server/pipeline/chunk.ts';
import { normalizeItem } from '../../../../server/pipeline/normalize.ts';
import type { TokenCounter } from '../../../../server/embedders/embedder.ts';
import type { Chunk } from '../../../../server/pipeline/types.ts';

/** One token per whitespace-separated word. */
const countWords: TokenCounter = (text) => text.match(/\S+/g)?.length ?? 0;

/**
 * An approximation of a BERT-style WordPiece tokenizer, not the real thing: letters/digits runs
 * and single punctuation marks are words, a word costs one token per 4 characters, and every
 * call adds 2 for [CLS] and [SEP]. Enough to exercise sub-word costs and a fixed per-call cost.
 */
const countWordPieces: TokenCounter = (text) =>
  2 + (text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).reduce((sum, word) => sum + Math.ceil(word.length / 4), 0);

/** Like USE-lite's SentencePiece, where a newline costs a token of its own. */
const countWordsAndNewlines: TokenCounter = (text) => countWords(text) + (text.match(/\n/g)?.length ?? 0);

/**
 * Sentences of `size` words, each word unique in the whole test, so every passage is found once.
 * Words are capitalized: after "x." a lowercase word does not start a sentence (think "e.g. this").
 */
let nextWord = 0;
function sentence(size: number, end = '.'): string {
  return `${Array.from({ length: size }, () => `W${nextWord++}`).join(' ')}${end}`;
}

/** Where each chunk sits in the text (texts are built from unique words, so indexOf is exact). */
function locate(text: string, chunks: Chunk[]): { start: number; end: number }[] {
  let from = 0;
  return chunks.map((chunk) => {
    const start = text.indexOf(chunk.text, from);
    assert.ok(start >= 0, `chunk ${chunk.index} is not verbatim: ${JSON.stringify(chunk.text)}`);
    from = start + 1;
    return { start, end: start + chunk.text.length };
  });
}

/** A blob like an inlined base64 image: no spaces, no repeats (a fixed-seed LCG). */
function base64Blob(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let seed = 42;
  return Array.from({ length }, () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return alphabet[(seed >>> 16) % 64];
  }).join('');
}

/**
 * What must hold for every chunking: limits, the same title (or its start, when it had to be
 * shortened) carried into every chunk, verbatim text, full coverage in order.
 */
function assertWellFormed(title: string, text: string, chunks: Chunk[], maxTokens: number, count: TokenCounter): void {
  assert.ok(chunks.length > 0);
  const spans = locate(text, chunks);
  const carried = chunks[0]!.embedText.slice(0, -chunks[0]!.text.length).replace(/\n$/, '');
  assert.ok(title.startsWith(carried), `carried title "${carried}" is not the start of "${title}"`);
  chunks.forEach((chunk, i) => {
    assert.equal(chunk.index, i);
    assert.ok(chunk.text.trim().length > 0 && chunk.text === chunk.text.trim());
    assert.equal(chunk.embedText, carried ? `${carried}\n${chunk.text}` : chunk.text);
    assert.equal(chunk.tokenCount, count(chunk.embedText));
    assert.ok(chunk.tokenCount <= maxTokens, `chunk ${i} has ${chunk.tokenCount} > ${maxTokens} tokens`);
  });
  assert.equal(spans[0]!.start, 0);
  assert.equal(spans.at(-1)!.end, text.length);
  for (let i = 1; i < spans.length; i++) {
    const previous = spans[i - 1]!;
    const current = spans[i]!;
    assert.ok(current.start > previous.start && current.end > previous.end, `chunk ${i} brings nothing new`);
    assert.equal(text.slice(previous.end, current.start).trim(), '', `text between chunks ${i - 1} and ${i} is lost`);
  }
}

describe('chunkItem: limits and shape', () => {
  it('packs whole sentences up to the budget and repeats the last ones that fit the overlap', () => {
    const sentences = Array.from({ length: 10 }, () => sentence(5));
    const text = sentences.join(' ');
    const chunks = chunkItem({ title: 'T', text }, { maxTokens: 21, overlapTokens: 10, countTokens: countWords });
    // Budget 20 words after the 1-word title: four 5-word sentences, then two of them again.
    assert.deepEqual(
      chunks.map((c) => c.text),
      [sentences.slice(0, 4), sentences.slice(2, 6), sentences.slice(4, 8), sentences.slice(6, 10)].map((s) => s.join(' ')),
    );
    assertWellFormed('T', text, chunks, 21, countWords);
  });

  it('repeats nothing without overlap', () => {
    const text = Array.from({ length: 10 }, () => sentence(4)).join(' ');
    const chunks = chunkItem({ title: '', text }, { maxTokens: 20, overlapTokens: 0, countTokens: countWords });
    assert.equal(chunks.map((c) => c.text).join(' '), text);
  });

  it('ends every chunk at a sentence end and starts it at a sentence start', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => sentence(3 + (i % 9), i % 3 ? '.' : '?'));
    const text = sentences.join(' ');
    const starts = new Set<number>();
    const ends = new Set<number>();
    let offset = 0;
    for (const s of sentences) {
      starts.add(offset);
      ends.add(offset + s.length);
      offset += s.length + 1;
    }
    const chunks = chunkItem({ title: 'Guide', text }, { maxTokens: 30, overlapTokens: 10, countTokens: countWords });
    for (const span of locate(text, chunks)) {
      assert.ok(starts.has(span.start) && ends.has(span.end), `chunk at ${span.start}-${span.end} cuts a sentence`);
    }
    assertWellFormed('Guide', text, chunks, 30, countWords);
  });

  it('never ends a chunk inside a web address at its "?" or "!"', () => {
    const link = 'https://drive.example.com/uc?export=download&id=F1!x';
    const text = Array.from({ length: 12 }, (_, i) => `${sentence(4)} Get it at ${link}${i} today.`).join(' ');
    const chunks = chunkItem({ title: 'Links', text }, { maxTokens: 10, overlapTokens: 0, countTokens: countWords });
    for (const chunk of chunks) {
      assert.doesNotMatch(chunk.text, /(\?|!)$|^(export|x)/, `chunk cut inside the address: ${JSON.stringify(chunk.text)}`);
    }
    assert.equal(chunks.filter((c) => c.text.includes(`${link}3 today.`)).length, 1);
    assertWellFormed('Links', text, chunks, 10, countWords);
  });

  it('moves a paragraph that fits whole to the next chunk instead of cutting it', () => {
    const [first, second] = [sentence(11), sentence(11)];
    const chunks = chunkItem({ title: '', text: `${first}\n\n${second}` }, { maxTokens: 20, overlapTokens: 0, countTokens: countWords });
    assert.deepEqual(chunks.map((c) => c.text), [first, second]);
  });

  it('fills a nearly empty chunk with the first sentences of a long paragraph rather than leaving a stub', () => {
    const intro = sentence(3);
    const long = [sentence(9), sentence(9), sentence(9)];
    const chunks = chunkItem({ title: '', text: `${intro}\n\n${long.join(' ')}` }, { maxTokens: 20, overlapTokens: 0, countTokens: countWords });
    assert.equal(chunks[0]!.text, `${intro}\n\n${long[0]}`);
  });

  it('keeps a heading with the paragraph it introduces', () => {
    const intro = sentence(14);
    const body = sentence(10);
    const text = `${intro}\n\nOpening hours\n\n${body}`;
    const chunks = chunkItem({ title: '', text }, { maxTokens: 20, overlapTokens: 0, countTokens: countWords });
    assert.deepEqual(chunks.map((c) => c.text), [intro, `Opening hours\n\n${body}`]);
  });

  it('treats lines (list items, table rows) as sentences', () => {
    const items = Array.from({ length: 12 }, (_, i) => `- item${i} W${nextWord++} W${nextWord++}`);
    const text = items.join('\n');
    const chunks = chunkItem({ title: 'List', text }, { maxTokens: 15, overlapTokens: 0, countTokens: countWords });
    for (const chunk of chunks) assert.ok(chunk.text.split('\n').every((line) => items.includes(line)));
    assertWellFormed('List', text, chunks, 15, countWords);
  });

  it('charges newlines when the tokenizer does (SentencePiece-like counter)', () => {
    const text = Array.from({ length: 30 }, () => `- ${sentence(2, '')}`).join('\n');
    const chunks = chunkItem({ title: 'Menu', text }, { maxTokens: 24, overlapTokens: 4, countTokens: countWordsAndNewlines });
    assertWellFormed('Menu', text, chunks, 24, countWordsAndNewlines);
  });
});

describe('chunkItem: what does not fit', () => {
  it('cuts a single over-long sentence at word boundaries, overlapping whole words', () => {
    const text = sentence(100);
    const chunks = chunkItem({ title: 'Long', text }, { maxTokens: 30, overlapTokens: 5, countTokens: countWords });
    assertWellFormed('Long', text, chunks, 30, countWords);
    const words = new Set(text.replace('.', '').split(' '));
    for (const chunk of chunks) for (const word of chunk.text.replace('.', '').split(' ')) assert.ok(words.has(word), `partial word ${word}`);
    assert.ok(chunks.length >= 4);
  });

  it('keeps every chunk within the limit with sub-word costs and a fixed per-call cost (WordPiece-like counter)', () => {
    const longWords = Array.from({ length: 12 }, () => `Internationalization${nextWord++}`).join(' ');
    const text = [sentence(30), `Specifications: ${longWords}.`, sentence(8)].join('\n\n');
    const chunks = chunkItem({ title: 'Product sheet', text }, { maxTokens: 24, overlapTokens: 6, countTokens: countWordPieces });
    assertWellFormed('Product sheet', text, chunks, 24, countWordPieces);
  });

  it('splits a giant token without spaces, and only there inside a word', () => {
    const blob = base64Blob(3_500);
    const text = `${sentence(5)} ${blob} ${sentence(5)}`;
    const chunks = chunkItem({ title: 'Data', text }, { maxTokens: 40, overlapTokens: 10, countTokens: countWordPieces });
    assertWellFormed('Data', text, chunks, 40, countWordPieces);
    assert.ok(chunks.length > 20);
  });

  it('chunks Japanese text without spaces by sentences and word pieces', () => {
    const countChars: TokenCounter = (t) => t.replace(/\s/g, '').length;
    const text = `${'これは日本語の文章です。'.repeat(40)}\n\n${'東京都の天気予報によると明日は晴れ'.repeat(20)}`;
    const chunks = chunkItem({ title: '天気', text }, { maxTokens: 50, overlapTokens: 12, countTokens: countChars });
    for (const chunk of chunks) assert.ok(text.includes(chunk.text) && chunk.tokenCount <= 50);
    assert.equal(chunks[0]!.text, 'これは日本語の文章です。'.repeat(4));
  });

  it('still respects the limit when counts are far from additive: the final recount splits again', () => {
    // Each word costs more the longer the text: summed unit counts badly underestimate a chunk.
    const superadditive: TokenCounter = (t) => {
      const words = countWords(t);
      return words + Math.floor((words * words) / 20);
    };
    const text = Array.from({ length: 8 }, () => Array.from({ length: 6 }, () => sentence(5)).join(' ')).join('\n\n');
    const chunks = chunkItem({ title: 'T', text }, { maxTokens: 40, overlapTokens: 5, countTokens: superadditive });
    assertWellFormed('T', text, chunks, 40, superadditive);
  });

  it('truncates a huge title to a third of the budget, at a word boundary, in every chunk', () => {
    const title = sentence(300, '');
    const text = Array.from({ length: 20 }, () => sentence(6)).join(' ');
    const chunks = chunkItem({ title, text }, { maxTokens: 60, overlapTokens: 5, countTokens: countWords });
    const carried = chunks[0]!.embedText.slice(0, chunks[0]!.embedText.indexOf('\n'));
    assert.ok(title.startsWith(`${carried} `), 'carried title is a whole-word prefix of the title');
    assert.ok(countWords(carried) <= 20);
    for (const chunk of chunks) {
      assert.ok(chunk.embedText.startsWith(`${carried}\n`));
      assert.ok(chunk.tokenCount <= 60);
    }
  });

  it('makes one chunk of the title for an item without body, and none for an empty item', () => {
    assert.deepEqual(chunkItem({ title: 'Opening hours', text: '' }, { maxTokens: 10, overlapTokens: 2, countTokens: countWords }), [
      { index: 0, text: 'Opening hours', embedText: 'Opening hours', tokenCount: 2 },
    ]);
    assert.deepEqual(chunkItem({ title: '', text: ' \n ' }, { maxTokens: 10, overlapTokens: 2, countTokens: countWords }), []);
    const [only] = chunkItem({ title: sentence(50, ''), text: '' }, { maxTokens: 10, overlapTokens: 2, countTokens: countWords });
    assert.equal(only!.tokenCount, 10);
  });

  it('refuses options that leave no room for text', () => {
    const item = { title: 'T', text: 'Some text.' };
    assert.throws(() => chunkItem(item, { maxTokens: 0, overlapTokens: 0, countTokens: countWords }), RangeError);
    assert.throws(() => chunkItem(item, { maxTokens: 10, overlapTokens: -1, countTokens: countWords }), RangeError);
    assert.throws(() => chunkItem(item, { maxTokens: 2, overlapTokens: 0, countTokens: countWordPieces }), RangeError);
  });
});

describe('chunkItem: properties', () => {
  it('holds limits, coverage, order and overlap bounds for any document (property-based)', () => {
    const counters = [countWords, countWordPieces, countWordsAndNewlines];
    const paragraph = fc.array(fc.integer({ min: 1, max: 45 }), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(
        fc.array(paragraph, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 12, max: 160 }),
        fc.integer({ min: 0, max: 40 }),
        fc.constantFrom(0, 1, 2),
        fc.boolean(),
        (paragraphs, maxTokens, overlapTokens, counterIndex, withTitle) => {
          const count = counters[counterIndex]!;
          const text = paragraphs.map((sizes) => sizes.map((size) => sentence(size)).join(size2space(sizes))).join('\n\n');
          const title = withTitle ? 'Product guide' : '';
          const chunks = chunkItem({ title, text }, { maxTokens, overlapTokens, countTokens: count });
          assertWellFormed(title, text, chunks, maxTokens, count);
          const spans = locate(text, chunks);
          for (let i = 1; i < spans.length; i++) {
            const shared = text.slice(spans[i]!.start, Math.max(spans[i]!.start, spans[i - 1]!.end));
            assert.ok(count(shared) - count('') <= overlapTokens, `overlap "${shared}" exceeds ${overlapTokens}`);
            assert.ok(spans[i]!.start === 0 || /\s/.test(text[spans[i]!.start - 1]!), 'chunk starts inside a word');
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('chunks normalized CMS content into verbatim, citable passages', () => {
    const item = normalizeItem('PRODUCT', {
      title: 'Linen Shirt &ndash; Summer Edition',
      content: `<h1>Linen Shirt</h1><p>${sentence(40)} ${sentence(25)}</p><ul><li>Breathable</li><li>Machine washable</li></ul>`,
      sourceData: { price: 19.9, currency: 'EUR', sku: 'LS-1', attributes: { color: 'white', size: 'M' } },
    });
    const chunks = chunkItem(item, { maxTokens: 48, overlapTokens: 8, countTokens: countWordPieces });
    assertWellFormed(item.title, item.text, chunks, 48, countWordPieces);
    assert.ok(chunks.at(-1)!.text.includes('Price: 19.90 EUR'));
  });
});

/** Sentences inside a paragraph are joined by spaces, or by newlines to mimic list-like paragraphs. */
function size2space(sizes: number[]): string {
  return sizes.length % 2 ? ' ' : '\n';
}
