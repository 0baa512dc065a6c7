// model.rotation(layer): the RoPE each layer applies, as the page's four-steps view describes it,
// against the frequencies computed here from config.json as Hugging Face's rope_init_fn does
// (modeling_rope_utils.py: default, and llama3's bands): Llama's every dimension, Llama 3's scaled
// ones, Pythia's first rotary_pct of each head, Gemma 3's local base on its sliding layers, and
// no rotation for BERT.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));
const config = (name) => JSON.parse(readFileSync(`${DIR}${name}/config.json`, 'utf8'));

/** base^(−2i/r) for i < r/2. */
const defaultFrequencies = (base, r) => Array.from({ length: r / 2 }, (_, i) => base ** (-2 * i / r));

/** Llama 3's bands: high frequencies kept, low ones divided by factor, the ones between blended. */
function llama3(frequencies, { factor, low_freq_factor: low, high_freq_factor: high, original_max_position_embeddings: context }) {
  return frequencies.map((f) => {
    const wavelength = (2 * Math.PI) / f;
    if (wavelength < context / high) return f;
    if (wavelength > context / low) return f / factor;
    const smooth = (context / wavelength - low) / (high - low);
    return (1 - smooth) * (f / factor) + smooth * f;
  });
}

let engine;
beforeAll(async () => {
  engine = await loadEngine();
});
afterAll(() => engine.dispose());

async function rotations(name) {
  const model = await engine.loadModel(`${DIR}${name}`);
  try {
    return Array.from({ length: model.numLayers }, (_, l) => model.rotation(l));
  } finally {
    model.dispose();
  }
}

function expectFrequencies(got, want) {
  expect(got).toHaveLength(want.length);
  got.forEach((f, i) => expect(Math.abs(f - want[i]) / want[i]).toBeLessThan(1e-12));
}

test('Llama rotates every dimension of each head at base^(−2i/r)', async () => {
  const c = config('llama-smol');
  for (const r of await rotations('llama-smol')) {
    expect(r.dimensions).toBe(c.head_dim);
    expectFrequencies(r.frequencies, defaultFrequencies(c.rope_theta, c.head_dim));
  }
});

test('Llama 3\'s rope_scaling changes the low frequencies by bands', async () => {
  const c = config('llama3-scaled');
  for (const r of await rotations('llama3-scaled')) {
    expectFrequencies(r.frequencies, llama3(defaultFrequencies(c.rope_theta, c.head_dim), c.rope_scaling));
  }
});

test('Pythia rotates only the first rotary_pct of each head', async () => {
  const c = config('pythia');
  const r = c.rotary_pct * (c.hidden_size / c.num_attention_heads);
  for (const rotation of await rotations('pythia')) {
    expect(rotation.dimensions).toBe(r);
    expectFrequencies(rotation.frequencies, defaultFrequencies(c.rotary_emb_base, r));
  }
});

test('Gemma 3\'s sliding layers turn at rope_local_base_freq, its full layers at rope_theta', async () => {
  const c = config('gemma3');
  const [first, second, full] = await rotations('gemma3'); // sliding_window_pattern 3: layer 2 is full
  for (const sliding of [first, second]) expectFrequencies(sliding.frequencies, defaultFrequencies(c.rope_local_base_freq, c.head_dim));
  expectFrequencies(full.frequencies, defaultFrequencies(c.rope_theta, c.head_dim));
});

test('a model with learned positions has no rotation, and a layer it lacks is an error', async () => {
  expect(await rotations('bert-plain')).toEqual([null, null]);
  const model = await engine.loadModel(`${DIR}llama-smol`);
  expect(() => model.rotation(2)).toThrow('layer must be from 0 to 1, got 2');
  model.dispose();
});
