// Test helper: a tiny random BERT in the Hugging Face layout (config.json object, tokenizer.json
// object, model.safetensors bytes), so model loading and its errors can be tested on files
// made here, down to the byte.
import { randomValues } from './helpers.js';

export const TINY = { vocab: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'the', 'cat', 'sat', 'on', 'mat', '.', ','], d: 8, heads: 2, layers: 2, ff: 12, positions: 10 };

export function tinyConfig(overrides = {}) {
  return {
    model_type: 'bert', architectures: ['BertModel'], vocab_size: TINY.vocab.length, hidden_size: TINY.d,
    num_hidden_layers: TINY.layers, num_attention_heads: TINY.heads, intermediate_size: TINY.ff, hidden_act: 'gelu',
    max_position_embeddings: TINY.positions, type_vocab_size: 2, layer_norm_eps: 1e-12, pad_token_id: 0, ...overrides,
  };
}

/** A word-level vocabulary written as WordPiece, as the default model's tokenizer is. */
export function tinyTokenizer() {
  const special = (content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    added_tokens: TINY.vocab.slice(0, 5).map(special),
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'WhitespaceSplit' },
      { type: 'Split', pattern: { Regex: '\\p{L}+|\\p{N}+|[^\\s\\p{L}\\p{N}]' }, behavior: 'Isolated', invert: false },
    ] },
    post_processor: { type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [], special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } } },
    decoder: null,
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
      vocab: Object.fromEntries(TINY.vocab.map((w, i) => [w, i])) },
  };
}

/** name → { shape, values } of a random BertModel; nn.Linear weights are (out, in). */
/** The tensors of a BERT of TINY's sizes, or of `sizes` over them (a bigger one, for runs that take a while). */
export function tinyTensors(sizes = {}) {
  const { d, ff, layers, positions, vocab } = { ...TINY, ...sizes };
  const tensors = {};
  let seed = 1;
  const add = (name, shape, limit) => { tensors[name] = { shape, values: randomValues(shape.reduce((a, b) => a * b), seed++, limit) }; };
  add('embeddings.word_embeddings.weight', [vocab.length, d], 1);
  add('embeddings.position_embeddings.weight', [positions, d], 0.5);
  add('embeddings.token_type_embeddings.weight', [2, d], 0.5);
  add('embeddings.LayerNorm.weight', [d], 1.5);
  add('embeddings.LayerNorm.bias', [d], 0.2);
  for (let i = 0; i < layers; i++) {
    const p = `encoder.layer.${i}.`;
    for (const lin of ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense']) {
      add(`${p}${lin}.weight`, [d, d], 0.6);
      add(`${p}${lin}.bias`, [d], 0.1);
    }
    add(`${p}intermediate.dense.weight`, [ff, d], 0.5);
    add(`${p}intermediate.dense.bias`, [ff], 0.1);
    add(`${p}output.dense.weight`, [d, ff], 0.5);
    add(`${p}output.dense.bias`, [d], 0.1);
    for (const ln of ['attention.output.LayerNorm', 'output.LayerNorm']) {
      add(`${p}${ln}.weight`, [d], 1.5);
      add(`${p}${ln}.bias`, [d], 0.2);
    }
  }
  return tensors;
}

/** safetensors bytes (F32) for `tensors`; `header` may replace the JSON header text. */
export function safetensorsBytes(tensors, header) {
  const entries = {};
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    entries[name] = { dtype: t.dtype ?? 'F32', shape: t.shape, data_offsets: [offset, offset + 4 * t.values.length] };
    offset += 4 * t.values.length;
  }
  const text = new TextEncoder().encode(header ?? JSON.stringify(entries));
  const bytes = new Uint8Array(8 + text.length + offset);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(text.length), true);
  bytes.set(text, 8);
  let at = 8 + text.length;
  for (const t of Object.values(tensors)) {
    bytes.set(new Uint8Array(Float32Array.from(t.values).buffer), at);
    at += 4 * t.values.length;
  }
  return bytes;
}

export function tinyModelFiles() {
  return { config: tinyConfig(), tokenizer: tinyTokenizer(), weights: safetensorsBytes(tinyTensors()) };
}
