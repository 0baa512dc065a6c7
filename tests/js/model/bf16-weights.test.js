// A BF16 checkpoint's matrices and embedding tables stay bfloat16 in WASM memory (Qwen3-0.6B would
// take 3.0 GB as float32, past what the heap can hold): loading one takes at most 1.15 times its
// file's size, and it computes exactly what the same weights widened to an F32 file compute.
// The checkpoint is a Llama of 7.3M parameters (grouped 4 on 2, an untied head) written here from
// seeded values, with llama-smol's tokenizer.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS } from '../helpers.js';

const SMOL = fileURLToPath(new URL('../../fixtures/checkpoints/llama-smol/', import.meta.url));
const D = 256, HEADS = 4, KV = 2, DH = 64, FF = 768, LAYERS = 4, VOCAB = 8192;

/** Every tensor's name and shape, as LlamaForCausalLM saves them. */
function shapes() {
  const s = { 'model.embed_tokens.weight': [VOCAB, D], 'model.norm.weight': [D], 'lm_head.weight': [VOCAB, D] };
  for (let l = 0; l < LAYERS; l++) {
    const p = `model.layers.${l}.`;
    Object.assign(s, {
      [`${p}input_layernorm.weight`]: [D], [`${p}post_attention_layernorm.weight`]: [D],
      [`${p}self_attn.q_proj.weight`]: [HEADS * DH, D], [`${p}self_attn.k_proj.weight`]: [KV * DH, D],
      [`${p}self_attn.v_proj.weight`]: [KV * DH, D], [`${p}self_attn.o_proj.weight`]: [D, HEADS * DH],
      [`${p}mlp.gate_proj.weight`]: [FF, D], [`${p}mlp.up_proj.weight`]: [FF, D], [`${p}mlp.down_proj.weight`]: [D, FF],
    });
  }
  return s;
}

/**
 * model.safetensors with every value a bfloat16 (seeded), stored as BF16 or widened to F32: the
 * same numbers either way. Norm weights sit near 1, matrices near ±1/√fan-in.
 */
function checkpoint(dtype) {
  let state = 12345;
  const next = () => { state = (Math.imul(state, 1103515245) + 12345) >>> 0; return state / 2 ** 32 - 0.5; };
  const bits = new Uint32Array(1), value = new Float32Array(bits.buffer);
  const entries = {}, arrays = [];
  let offset = 0;
  for (const [name, shape] of Object.entries(shapes())) {
    const count = shape.reduce((a, b) => a * b, 1);
    const halves = new Uint16Array(count);
    const scale = shape.length === 1 ? 0.1 : 2 / Math.sqrt(shape[1]);
    for (let i = 0; i < count; i++) {
      value[0] = (shape.length === 1 ? 1 : 0) + scale * next();
      halves[i] = bits[0] >>> 16; // truncated to bfloat16
    }
    const data = dtype === 'BF16' ? new Uint8Array(halves.buffer)
      : new Uint8Array(Uint32Array.from(halves, (h) => h << 16).buffer);
    entries[name] = { dtype, shape, data_offsets: [offset, offset + data.length] };
    arrays.push(data);
    offset += data.length;
  }
  const text = new TextEncoder().encode(JSON.stringify(entries));
  const bytes = new Uint8Array(8 + text.length + offset);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(text.length), true);
  bytes.set(text, 8);
  let at = 8 + text.length;
  for (const data of arrays) {
    bytes.set(data, at);
    at += data.length;
  }
  return bytes;
}

const config = JSON.stringify({
  ...JSON.parse(readFileSync(`${SMOL}config.json`, 'utf8')), hidden_size: D, num_attention_heads: HEADS, num_key_value_heads: KV,
  head_dim: DH, intermediate_size: FF, num_hidden_layers: LAYERS, vocab_size: VOCAB, max_position_embeddings: 256,
  tie_word_embeddings: false,
});
const tokenizer = readFileSync(`${SMOL}tokenizer.json`, 'utf8');
const TEXT = 'The old man saw the river, and the children were walking slowly to it. '.repeat(7);

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(options); });
  afterAll(() => engine.dispose());

  test('a BF16 checkpoint takes at most 1.15 times its file in WASM memory, and computes what its F32 twin computes', async () => {
    const bf16 = checkpoint('BF16'), f32 = checkpoint('F32');
    const before = engine.memory().usedBytes;
    const half = await engine.loadModel({ config, tokenizer, weights: bf16 });
    const grown = engine.memory().usedBytes - before;
    process.stdout.write(`[bf16] ${build}: model.safetensors ${(bf16.length / 2 ** 20).toFixed(1)} MiB, heap in use grew ` +
      `${(grown / 2 ** 20).toFixed(1)} MiB (${(grown / bf16.length).toFixed(3)} times)\n`);
    expect(grown).toBeLessThanOrEqual(1.15 * bf16.length);
    const full = await engine.loadModel({ config, tokenizer, weights: f32 });
    const a = half.run(TEXT), b = full.run(TEXT);
    expect(a.ids.length).toBeGreaterThanOrEqual(128);
    for (let l = 0; l < LAYERS; l++) {
      for (let h = 0; h < HEADS; h++) expect(a.attention(l, h)).toEqual(b.attention(l, h));
    }
    expect(a.hidden).toEqual(b.hidden);
    expect(a.logits(a.ids.length - 1)).toEqual(b.logits(b.ids.length - 1));
    half.dispose();
    full.dispose();
  });
});
