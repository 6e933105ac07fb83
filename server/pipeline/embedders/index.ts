import type { Embedder } from '../types.ts';
import { createOnnxFolderEmbedder } from './onnx-folder.ts';
import { createUseLiteEmbedder } from './use-lite.ts';

export type EmbedderConfig = { kind: 'use-lite' } | { kind: 'onnx-folder'; path: string };

/** Loads the configured model; call once per worker thread and reuse it (loading costs time and memory). */
export function createEmbedder(config: EmbedderConfig): Promise<Embedder> {
  switch (config.kind) {
    case 'use-lite':
      return createUseLiteEmbedder();
    case 'onnx-folder':
      return createOnnxFolderEmbedder(config.path);
  }
}
