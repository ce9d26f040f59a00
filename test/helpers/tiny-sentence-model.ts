/**
 * A sentence-embedding model small enough to write in a test: the folder layout of
 * Xenova/all-MiniLM-L6-v2 (config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx)
 * around a BERT tokenizer with a word-piece vocabulary of a few words and an ONNX graph of one
 * Gather: each token's hidden state is its row of a fixed embedding table. So the real
 * transformers.js and ONNX Runtime load and run it as they would a real model, and what a text's
 * vector must be is known exactly: the L2-normalised mean of its tokens' rows, [CLS] and [SEP]
 * included, padding excluded.
 *
 * Why the ONNX bytes are written here: no model can be downloaded in this repository's tests, and
 * a protobuf library plus ONNX's schema would be a dependency for one message of four fields;
 * the wire format below (varints and length-delimited fields) is all that message needs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The vocabulary, by token id: the five BERT specials, then lower-case words. */
export const TINY_VOCABULARY = [
  '[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]',
  'book', 'a', 'flight', 'to', 'paris', 'reserve', 'plane', 'ticket', 'compute', 'the', 'square', 'root', 'of', '##s',
] as const;
export const TINY_DIMENSIONS = 4;
const ID = { pad: 0, unk: 1, cls: 2, sep: 3 } as const;

/** The hidden state of token `id`: a fixed row with no two rows alike, and no row zero. */
export function tinyRow(id: number): number[] {
  return Array.from({ length: TINY_DIMENSIONS }, (_, j) => ((id * 7 + j * 3) % 11) - 5 + (j === 0 ? 0.5 : 0));
}

/** The vector the model must give for a text of these token ids ([CLS] and [SEP] added here). */
export function tinyExpected(ids: readonly number[]): Float32Array {
  const tokens = [ID.cls, ...ids, ID.sep];
  const sum = new Array<number>(TINY_DIMENSIONS).fill(0);
  for (const t of tokens) tinyRow(t).forEach((v, j) => (sum[j]! += v / tokens.length));
  const norm = Math.hypot(...sum);
  return Float32Array.from(sum, (v) => v / norm);
}

/** The token ids the tokenizer must give for `word` (lower-cased, whole vocabulary words or [UNK]). */
export function tinyId(word: string): number {
  const id = (TINY_VOCABULARY as readonly string[]).indexOf(word);
  return id >= 0 ? id : ID.unk;
}

// Protobuf wire format: field key = (number << 3) | wire type; 0 varint, 2 length-delimited.
function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  do {
    let byte = v % 128;
    v = Math.floor(v / 128);
    if (v > 0) byte += 128;
    out.push(byte);
  } while (v > 0);
  return out;
}
const integer = (field: number, value: number): number[] => [...varint(field * 8), ...varint(value)];
const bytes = (field: number, data: ArrayLike<number>): number[] => [...varint(field * 8 + 2), ...varint(data.length), ...Array.from(data)];
const text = (field: number, value: string): number[] => bytes(field, Buffer.from(value, 'utf8'));
const message = (field: number, parts: number[][]): number[] => bytes(field, parts.flat());

/** ONNX ValueInfoProto of a tensor: name, then type.tensor_type {elem_type, shape}; a string dimension is symbolic. */
function tensorInfo(field: number, name: string, elemType: number, dims: readonly (number | string)[]): number[] {
  const shape = dims.map((d) => message(1, [typeof d === 'number' ? integer(1, d) : text(2, d)]));
  return message(field, [text(1, name), message(2, [message(1, [integer(1, elemType), message(2, shape)])])]);
}

const FLOAT = 1;
const INT64 = 7;

/** ModelProto (IR 8, opset 13): last_hidden_state = Gather(embeddings, input_ids). */
function onnxModel(): Buffer {
  const table = new Float32Array(TINY_VOCABULARY.length * TINY_DIMENSIONS);
  TINY_VOCABULARY.forEach((_, id) => table.set(tinyRow(id), id * TINY_DIMENSIONS));
  const graph = [
    // NodeProto: input (1) x2, output (2), name (3), op_type (4).
    message(1, [text(1, 'embeddings'), text(1, 'input_ids'), text(2, 'last_hidden_state'), text(3, 'lookup'), text(4, 'Gather')]),
    text(2, 'tiny-sentence-model'),
    // TensorProto initializer: dims (1), data_type (2), name (8), raw_data (9, little-endian).
    message(5, [integer(1, TINY_VOCABULARY.length), integer(1, TINY_DIMENSIONS), integer(2, FLOAT), text(8, 'embeddings'), bytes(9, new Uint8Array(table.buffer))]),
    tensorInfo(11, 'input_ids', INT64, ['batch', 'sequence']),
    tensorInfo(11, 'attention_mask', INT64, ['batch', 'sequence']),
    tensorInfo(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', TINY_DIMENSIONS]),
  ];
  // ModelProto: ir_version (1), producer_name (2), graph (7), opset_import (8) {domain, version}.
  return Buffer.from([...integer(1, 8), ...text(2, 'toolgraph tests'), ...message(7, graph), ...message(8, [text(1, ''), integer(2, 13)])]);
}

function special(id: number, content: string): Record<string, unknown> {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/** Writes the model into `dir` (created), named as the folder's last part, and returns `dir`. */
export function writeTinySentenceModel(dir: string): string {
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnxModel());
  const vocab = Object.fromEntries(TINY_VOCABULARY.map((word, id) => [word, id]));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: TINY_DIMENSIONS, vocab_size: TINY_VOCABULARY.length, pad_token_id: ID.pad }),
  );
  const cls = { SpecialToken: { id: '[CLS]', type_id: 0 } };
  const sep = (typeId: number) => ({ SpecialToken: { id: '[SEP]', type_id: typeId } });
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [special(0, '[PAD]'), special(1, '[UNK]'), special(2, '[CLS]'), special(3, '[SEP]'), special(4, '[MASK]')],
      normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [cls, { Sequence: { id: 'A', type_id: 0 } }, sep(0)],
        pair: [cls, { Sequence: { id: 'A', type_id: 0 } }, sep(0), { Sequence: { id: 'B', type_id: 1 } }, sep(1)],
        special_tokens: { '[CLS]': { id: '[CLS]', ids: [ID.cls], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [ID.sep], tokens: ['[SEP]'] } },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  );
  return dir;
}
