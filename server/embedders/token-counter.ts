import type { Embedder } from './embedder.ts';
import type { EmbedderConfig } from './index.ts';

/** What chunking needs of a model: its id, its window and its tokenizer, without its weights. */
export type ModelTokenizer = Pick<Embedder, 'id' | 'maxTokens' | 'countTokens'>;

/**
 * The configured model's tokenizer alone, for a thread that chunks texts but never embeds them
 * (the text phase's thread, pipeline/text-worker.ts): USE-lite's vocabulary is a few MB where the
 * loaded model costs a thread ~110 MB. Counts are the embedder's own (the same code).
 */
export async function createTokenCounter(config: EmbedderConfig): Promise<ModelTokenizer> {
  switch (config.kind) {
    case 'use-lite':
      return (await import('./use-lite-tokenizer.ts')).createUseLiteTokenizer();
    case 'onnx-folder':
      return (await import('./onnx-folder.ts')).createOnnxFolderTokenizer(config.path);
  }
}
