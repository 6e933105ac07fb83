/**
 * Writes a GENERATED TEST MODEL: a tiny BERT-shaped ONNX model folder (config.json, tokenizer.json,
 * tokenizer_config.json, onnx/model.onnx) with seeded random weights. It exists only so tests can drive
 * the real transformers.js + onnxruntime-node loading and inference path without downloading
 * anything; its vectors carry no meaning and it must never be used for search quality.
 *
 * No ONNX tooling is available offline, so the protobuf is written by hand (a few fields of onnx.proto).
 * Run: node --import tsx scripts/make-test-onnx-model.ts <output-folder>
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TINY_MODEL_HIDDEN_SIZE = 32;
/** Positions the model has embeddings for: a longer input would fail inside the graph. */
export const TINY_MODEL_MAX_POSITIONS = 32;
/** What tokenizer_config.json declares; transformers.js truncates to it. */
export const TINY_MODEL_MAX_LENGTH = 16;

const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = (
  'the a an of and to in is it on for with at by from as be are was this that shop store open opening ' +
  'close hours day days week monday friday when does do what how our your return returns policy refund ' +
  'price order delivery ship shipping free lasts until'
).split(' ');
const CHARACTERS = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
const PUNCTUATION = [...'.,:;!?-\'"()/'];

function vocabulary(): string[] {
  const tokens = [
    ...SPECIAL_TOKENS,
    ...PUNCTUATION,
    ...CHARACTERS,
    ...CHARACTERS.map((c) => `##${c}`),
    ...WORDS,
  ];
  return [...new Set(tokens)];
}

// ---- A minimal protobuf writer: only the wire types onnx.proto needs here. ----

const WIRE_VARINT = 0;
const WIRE_BYTES = 2;

function varint(value: number | bigint): Uint8Array {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    bytes.push(rest ? low | 0x80 : low);
  } while (rest);
  return Uint8Array.from(bytes);
}

const concat = (parts: Uint8Array[]) => Buffer.concat(parts);
const key = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, value: number | bigint) => concat([key(field, WIRE_VARINT), varint(value)]);
const bytes = (field: number, data: Uint8Array) => concat([key(field, WIRE_BYTES), varint(data.length), data]);
const str = (field: number, text: string) => bytes(field, Buffer.from(text, 'utf8'));
const message = (field: number, ...fields: Uint8Array[]) => bytes(field, concat(fields));

// ---- onnx.proto messages. Field numbers are onnx.proto's; each builder says which message it writes. ----

const ELEMENT_FLOAT = 1; // TensorProto.DataType
const ELEMENT_INT64 = 7;
const ATTRIBUTE_INT = 2; // AttributeProto.AttributeType
const GRAPH_INPUT = 11;
const GRAPH_OUTPUT = 12;

/** GraphProto.initializer (5): TensorProto dims (1), data_type (2), name (8), raw_data (9). */
function initializer(name: string, dims: number[], data: Float32Array | BigInt64Array): Uint8Array {
  const elementType = data instanceof Float32Array ? ELEMENT_FLOAT : ELEMENT_INT64;
  const rawData = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return message(5, ...dims.map((d) => int(1, d)), int(2, elementType), str(8, name), bytes(9, rawData));
}

/**
 * GraphProto.input or .output: ValueInfoProto name (1), type (2) → TypeProto.tensor_type (1) →
 * elem_type (1), shape (2) → dim (1) → dim_value (1) for a fixed size or dim_param (2) for a named one.
 */
function valueInfo(field: number, name: string, elementType: number, dims: (number | string)[]): Uint8Array {
  const dimensions = dims.map((d) => message(1, typeof d === 'number' ? int(1, d) : str(2, d)));
  const tensorType = message(1, int(1, elementType), message(2, ...dimensions));
  return message(field, str(1, name), message(2, tensorType));
}

/**
 * GraphProto.node (1): NodeProto input (1), output (2), name (3), op_type (4), attribute (5) →
 * AttributeProto name (1), i (3), type (20).
 */
function node(op: string, inputs: string[], outputs: string[], intAttributes: Record<string, number> = {}): Uint8Array {
  const attributes = Object.entries(intAttributes).map(([name, value]) =>
    message(5, str(1, name), int(3, value), int(20, ATTRIBUTE_INT)),
  );
  return message(
    1,
    ...inputs.map((i) => str(1, i)),
    ...outputs.map((o) => str(2, o)),
    str(3, `${op}_${outputs[0]}`),
    str(4, op),
    ...attributes,
  );
}

/** Deterministic weights, so every generated copy computes the same vectors. */
function seededWeights(seed: number, count: number): Float32Array {
  let state = seed >>> 0;
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    values[i] = (state / 2 ** 32) * 2 - 1;
  }
  return values;
}

/** Embeddings (word + token type + position) → dense → tanh → zeroed at padding: BERT's shape, not its depth. */
function onnxModel(vocabSize: number): Uint8Array {
  const H = TINY_MODEL_HIDDEN_SIZE;
  const token = ['batch_size', 'sequence_length'];
  const nodes = [
    node('Gather', ['word_embeddings', 'input_ids'], ['words']),
    node('Gather', ['token_type_embeddings', 'token_type_ids'], ['types']),
    node('Shape', ['input_ids'], ['input_shape']),
    node('Gather', ['input_shape', 'sequence_axis'], ['sequence_length']),
    node('Range', ['zero', 'sequence_length', 'one'], ['positions']),
    node('Gather', ['position_embeddings', 'positions'], ['position_vectors']),
    node('Add', ['words', 'types'], ['typed_words']),
    node('Add', ['typed_words', 'position_vectors'], ['embeddings']),
    node('MatMul', ['embeddings', 'dense_weight'], ['projected']),
    node('Add', ['projected', 'dense_bias'], ['biased']),
    node('Tanh', ['biased'], ['hidden']),
    node('Cast', ['attention_mask'], ['mask'], { to: ELEMENT_FLOAT }),
    node('Unsqueeze', ['mask', 'last_axis'], ['mask_per_feature']),
    node('Mul', ['hidden', 'mask_per_feature'], ['last_hidden_state']),
  ];
  const initializers = [
    initializer('word_embeddings', [vocabSize, H], seededWeights(1, vocabSize * H)),
    initializer('token_type_embeddings', [2, H], seededWeights(2, 2 * H)),
    initializer('position_embeddings', [TINY_MODEL_MAX_POSITIONS, H], seededWeights(3, TINY_MODEL_MAX_POSITIONS * H)),
    initializer('dense_weight', [H, H], seededWeights(4, H * H)),
    initializer('dense_bias', [H], seededWeights(5, H)),
    initializer('sequence_axis', [], BigInt64Array.of(1n)),
    initializer('zero', [], BigInt64Array.of(0n)),
    initializer('one', [], BigInt64Array.of(1n)),
    initializer('last_axis', [1], BigInt64Array.of(-1n)),
  ];
  const signature = [
    valueInfo(GRAPH_INPUT, 'input_ids', ELEMENT_INT64, token),
    valueInfo(GRAPH_INPUT, 'attention_mask', ELEMENT_INT64, token),
    valueInfo(GRAPH_INPUT, 'token_type_ids', ELEMENT_INT64, token),
    valueInfo(GRAPH_OUTPUT, 'last_hidden_state', ELEMENT_FLOAT, [...token, H]),
  ];
  // GraphProto: node (1), name (2), initializer (5), input (11), output (12).
  const graph = message(7, ...nodes, str(2, 'generated_tiny_bert'), ...initializers, ...signature);
  // ModelProto: ir_version (1), producer_name (2), graph (7), opset_import (8) → domain (1), version (2).
  const defaultOpset17 = message(8, str(1, ''), int(2, 17));
  return concat([int(1, 8), str(2, 'localiq-test-model-generator'), graph, defaultOpset17]);
}

function tokenizerJson(vocab: string[]) {
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  const special = (content: string) => ({
    id: ids[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const specialSequence = (token: string) => ({ SpecialToken: { id: token, type_id: 0 } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [specialSequence('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, specialSequence('[SEP]')],
      pair: [
        specialSequence('[CLS]'),
        { Sequence: { id: 'A', type_id: 0 } },
        specialSequence('[SEP]'),
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(
        ['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [ids[t]], tokens: [t] }]),
      ),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

/** Writes the generated test model into `folder` (created if needed) and returns the folder. */
export function writeTinyOnnxModel(folder: string): string {
  const vocab = vocabulary();
  fs.mkdirSync(path.join(folder, 'onnx'), { recursive: true });
  const writeJson = (name: string, value: unknown) =>
    fs.writeFileSync(path.join(folder, name), JSON.stringify(value, null, 2) + '\n');
  writeJson('config.json', {
    _comment: 'GENERATED TEST MODEL (scripts/make-test-onnx-model.ts): random weights, no meaning.',
    model_type: 'bert',
    architectures: ['BertModel'],
    hidden_size: TINY_MODEL_HIDDEN_SIZE,
    vocab_size: vocab.length,
    max_position_embeddings: TINY_MODEL_MAX_POSITIONS,
    type_vocab_size: 2,
  });
  writeJson('tokenizer_config.json', {
    tokenizer_class: 'BertTokenizer',
    model_max_length: TINY_MODEL_MAX_LENGTH,
    do_lower_case: true,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
  });
  writeJson('tokenizer.json', tokenizerJson(vocab));
  fs.writeFileSync(path.join(folder, 'onnx', 'model.onnx'), onnxModel(vocab.length));
  return folder;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = process.argv[2];
  if (!target) {
    console.error('usage: node --import tsx scripts/make-test-onnx-model.ts <output-folder>');
    process.exit(2);
  }
  console.log(`generated test model written to ${writeTinyOnnxModel(path.resolve(target))}`);
}
