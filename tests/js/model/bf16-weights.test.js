// A BF16 checkpoint's matrices and embedding tables stay bfloat16 in WASM memory (Qwen3-0.6B would
// take 3.0 GB as float32, past what the heap can hold): loading one takes at most 1.15 times its
// file's size, and it computes exactly what the same weights widened to an F32 file compute.
// The checkpoint is a Llama of 7.3M parameters (grouped 4 on 2, an untied head) written from seeded
// values by the bench's writer (tools/bench/bf16.js), with llama-smol's tokenizer.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { llamaCheckpoint } from '../../../tools/bench/bf16.js';
import { BUILDS } from '../helpers.js';

const SMOL = fileURLToPath(new URL('../../fixtures/checkpoints/llama-smol/', import.meta.url));
const SHAPE = { d: 256, heads: 4, kv: 2, dh: 64, ff: 768, layers: 4, vocab: 8192, tied: false };

const config = JSON.stringify({
  ...JSON.parse(readFileSync(`${SMOL}config.json`, 'utf8')), hidden_size: SHAPE.d, num_attention_heads: SHAPE.heads,
  num_key_value_heads: SHAPE.kv, head_dim: SHAPE.dh, intermediate_size: SHAPE.ff, num_hidden_layers: SHAPE.layers,
  vocab_size: SHAPE.vocab, max_position_embeddings: 256, tie_word_embeddings: false,
});
const tokenizer = readFileSync(`${SMOL}tokenizer.json`, 'utf8');
const TEXT = 'The old man saw the river, and the children were walking slowly to it. '.repeat(7);

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeAll(async () => { engine = await loadEngine(options); });
  afterAll(() => engine.dispose());

  test('a BF16 checkpoint takes at most 1.15 times its file in WASM memory, and computes what its F32 twin computes', async () => {
    const bf16 = llamaCheckpoint(SHAPE, 'BF16'), f32 = llamaCheckpoint(SHAPE, 'F32');
    const before = engine.memory().usedBytes;
    const half = await engine.loadModel({ config, tokenizer, weights: bf16 });
    const grown = engine.memory().usedBytes - before;
    process.stdout.write(`[bf16] ${build}: model.safetensors ${(bf16.length / 2 ** 20).toFixed(1)} MiB, heap in use grew ` +
      `${(grown / 2 ** 20).toFixed(1)} MiB (${(grown / bf16.length).toFixed(3)} times)\n`);
    expect(grown).toBeLessThanOrEqual(1.15 * bf16.length);
    const full = await engine.loadModel({ config, tokenizer, weights: f32 });
    const a = half.run(TEXT), b = full.run(TEXT);
    expect(a.ids.length).toBeGreaterThanOrEqual(128);
    for (let l = 0; l < SHAPE.layers; l++) {
      for (let h = 0; h < SHAPE.heads; h++) expect(a.attention(l, h)).toEqual(b.attention(l, h));
    }
    expect(a.hidden).toEqual(b.hidden);
    expect(a.logits(a.ids.length - 1)).toEqual(b.logits(b.ids.length - 1));
    half.dispose();
    full.dispose();
  });
});
