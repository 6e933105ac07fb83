/**
 * An embedder for a sentence-embedding model the user keeps in a local folder in the Hugging Face
 * ONNX layout (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx), e.g.
 * all-MiniLM-L6-v2. Runs through transformers.js on onnxruntime-node; never touches the network.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AutoTokenizer, env, pipeline } from '@huggingface/transformers';
import type { Embedder } from './embedder.ts';
import type { ModelTokenizer } from './token-counter.ts';
import { embedInBatches } from './batches.ts';

/** Not measured on a real model (none is reachable here); a common size for small BERT encoders on CPU. */
const BATCH_SIZE = 16;
const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', path.join('onnx', 'model.onnx')];

/** The folder, checked, with transformers.js set to read only it. */
function localFolder(folder: string): string {
  const modelFolder = path.resolve(folder);
  const missing = REQUIRED_FILES.filter((file) => !fs.existsSync(path.join(modelFolder, file)));
  if (missing.length) throw new Error(`ONNX model folder ${modelFolder} lacks ${missing.join(', ')}`);
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  // Never consult the library's download cache: a cached file of a same-named hub model could shadow ours.
  env.useFSCache = false;
  return modelFolder;
}

/**
 * The folder's tokenizer without its model (no ONNX session): the same counts and window as
 * createOnnxFolderEmbedder's, for a thread that chunks but never embeds.
 */
export async function createOnnxFolderTokenizer(folder: string): Promise<ModelTokenizer> {
  const modelFolder = localFolder(folder);
  const tokenizer = await AutoTokenizer.from_pretrained(modelFolder, { local_files_only: true });
  const config = JSON.parse(fs.readFileSync(path.join(modelFolder, 'config.json'), 'utf8')) as unknown;
  return {
    id: `onnx:${path.basename(modelFolder)}`,
    maxTokens: readMaxTokens(tokenizer.model_max_length, config),
    countTokens: (text: string) => tokenizer.encode(text).length,
  };
}

export async function createOnnxFolderEmbedder(folder: string): Promise<Embedder> {
  const modelFolder = localFolder(folder);
  // An absolute path is not a hub model id, so transformers.js reads it as-is. Going through
  // env.localModelPath + folder name would break for names that are not valid hub ids ("my model").
  const extractor = await pipeline('feature-extraction', modelFolder, {
    device: 'cpu',
    dtype: 'fp32',
    local_files_only: true,
  });
  const { tokenizer } = extractor;
  const maxTokens = readMaxTokens(tokenizer.model_max_length, extractor.model.config);
  // The pipeline truncates at the tokenizer's model_max_length; pin it so truncation also happens
  // when only the model's position table limits the length (a longer input would crash the graph).
  Object.defineProperty(tokenizer, 'model_max_length', { value: maxTokens });
  // Special tokens ([CLS], [SEP]) count: they take up positions in the model's window too.
  const countTokens = (text: string) => tokenizer.encode(text).length;

  const embedBatch = async (texts: string[]) => {
    const output = await extractor(texts, { pooling: 'mean', normalize: true });
    const dimension = output.dims[1]!;
    const data = output.data as Float32Array;
    return texts.map((_, row) => data.slice(row * dimension, (row + 1) * dimension));
  };
  const [probe] = await embedBatch(['dimension probe']);

  return {
    id: `onnx:${path.basename(modelFolder)}`,
    dimension: probe!.length,
    maxTokens,
    countTokens,
    embed: (texts) => embedInBatches(texts, { batchSize: BATCH_SIZE, maxTokens, countTokens, embedBatch }),
    async close() {
      await extractor.dispose();
    },
  };
}

function readMaxTokens(tokenizerLimit: number, config: unknown): number {
  const positions = (config as { max_position_embeddings?: unknown }).max_position_embeddings;
  const limits = [tokenizerLimit, typeof positions === 'number' ? positions : Infinity];
  const maxTokens = Math.min(...limits);
  if (!Number.isFinite(maxTokens)) {
    throw new Error('Model declares neither model_max_length (tokenizer_config.json) nor max_position_embeddings');
  }
  return maxTokens;
}
