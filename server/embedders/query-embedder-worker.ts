/** A worker thread that embeds search queries, so the HTTP event loop never runs the model. */
import { parentPort, workerData } from 'node:worker_threads';
import { createEmbedder, type EmbedderConfig } from './index.ts';

export type QueryRequest = { id: number; texts: string[] };
export type QueryResponse = { id: number; vectors?: Float32Array[]; error?: string } | { ready: true; embedderId: string };

const port = parentPort!;
const embedder = await createEmbedder((workerData as { embedder: EmbedderConfig }).embedder);
port.postMessage({ ready: true, embedderId: embedder.id } satisfies QueryResponse);
port.on('message', async (request: QueryRequest) => {
  try {
    const vectors = await embedder.embed(request.texts);
    port.postMessage({ id: request.id, vectors } satisfies QueryResponse);
  } catch (error) {
    port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies QueryResponse);
  }
});
