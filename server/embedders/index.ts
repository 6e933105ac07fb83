import type { Embedder } from './embedder.ts';

export type EmbedderConfig = { kind: 'use-lite' } | { kind: 'onnx-folder'; path: string };

/**
 * Loads the configured model; call once per worker thread and reuse it (loading costs time and
 * memory). Each backend is imported only when chosen: transformers.js brings onnxruntime's native
 * library, which cost every USE-lite worker over 100 MB of memory it never used.
 */
export async function createEmbedder(config: EmbedderConfig): Promise<Embedder> {
  switch (config.kind) {
    case 'use-lite':
      return (await import('./use-lite.ts')).createUseLiteEmbedder();
    case 'onnx-folder':
      return (await import('./onnx-folder.ts')).createOnnxFolderEmbedder(config.path);
  }
}
