// Shared by the Jest suites: the builds to run against, the torch fixtures, and a float64
// reference of multi-head attention written directly from the definition.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Every suite runs once per WASM build: relaxed SIMD and SIMD (with threads where the machine has
 * several cores), and scalar. Jest runs under Node's --experimental-wasm-relaxed-simd
 * (jest.config.js insists), as a user of the relaxed build must. The one-core pass of npm test
 * runs the build loadEngine() picks alone: there it is the single-threaded relaxed one, and the
 * scalar build is the same in both passes.
 */
export const BUILDS = process.env.MULTIHEAD_ONE_CORE
  ? [['relaxed-simd', { relaxedSimd: true }]]
  : [['relaxed-simd', { relaxedSimd: true }], ['simd', { relaxedSimd: false }], ['scalar', { simd: false }]];

/**
 * The builds the suites of hostile input run on: the one loadEngine() picks and the scalar one.
 * What they try (files, configs, tokenizers, messages, calls at the wrong time) goes through code
 * every build shares; the relaxed and plain SIMD builds differ only in their kernels
 * (cpp/src/kernels/select.cpp), which BUILDS' numeric suites check, overflow included.
 */
export const HOSTILE_BUILDS = BUILDS.filter(([name]) => name !== 'simd');

const FIXTURES = fileURLToPath(new URL('../fixtures/attention/', import.meta.url));
export const FIXTURE_CASES = ['n7_d12_h3', 'n7_d12_h3_causal', 'n7_d12_h3_keymask', 'n33_d64_h4', 'n33_d64_h4_causal'];

/** Reads one folder written by tools/make_attention_fixtures.py. */
export function readFixture(name) {
  const fixture = { tensors: {} };
  for (const line of readFileSync(`${FIXTURES}${name}/case.txt`, 'utf8').trim().split('\n')) {
    const [key, ...rest] = line.split(' ');
    if (key === 'tensor') {
      const [tensor, ...dims] = rest;
      const bytes = readFileSync(`${FIXTURES}${name}/${tensor}.f32`);
      const values = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice();
      if (values.length !== dims.reduce((a, b) => a * b, 1)) throw new Error(`${name}/${tensor}.f32 has the wrong size`);
      fixture.tensors[tensor] = values;
    } else {
      fixture[key] = Number(rest[0]);
    }
  }
  if (fixture.key_mask) fixture.keyMask = new Uint8Array(readFileSync(`${FIXTURES}${name}/key_mask.u8`));
  return fixture;
}

/** Deterministic values in [-limit, limit) (a small LCG, so tests need no seedable library). */
export function randomValues(count, seed, limit = 1) {
  const out = new Float32Array(count);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32 * 2 - 1) * limit;
  }
  return out;
}

/**
 * Seeded weights in the engine's convention, for layers whose weights the test must know; `shape`
 * as referenceAttention's, with h: W_q (d, h·dh), W_k and W_v (d, kv·dh), W_o (h·dh, d).
 */
export function randomWeights(d, seed, { h = 1, kv = h, dh = d / h } = {}) {
  const sizes = { wq: [d, h * dh], wk: [d, kv * dh], wv: [d, kv * dh], wo: [h * dh, d] };
  const w = {};
  ['wq', 'wk', 'wv', 'wo'].forEach((name, i) => { w[name] = randomValues(sizes[name][0] * sizes[name][1], seed + i, 1 / Math.sqrt(sizes[name][0])); });
  ['bq', 'bk', 'bv', 'bo'].forEach((name, i) => { w[name] = randomValues(sizes[`w${name[1]}`][1], seed + 10 + i, 0.1); });
  return w;
}

/** input (n, inDim) · W (inDim, outDim) + b, in float64. */
function linear(input, n, inDim, W, b, outDim = inDim) {
  const y = new Float64Array(n * outDim);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < outDim; c++) {
      let acc = b[c];
      for (let p = 0; p < inDim; p++) acc += input[i * inDim + p] * W[p * outDim + c];
      y[i * outDim + c] = acc;
    }
  }
  return y;
}

/**
 * Multi-head attention in float64, straight from the definition: { weights: h × Float64Array(n·nKeys),
 * output: Float64Array(n·d) }. The last argument gives grouped key/value heads and the head width:
 * query head i reads key/value head i / (h / kv); W_q (d, h·dh), W_k and W_v (d, kv·dh), W_o (h·dh, d);
 * and the keys' own rows xKv (nKeys, d), with the n queries at positions queryPosition…: a causal
 * query i sees keys j ≤ queryPosition + i.
 */
export function referenceAttention(x, n, d, h, causal, w, keyMask, { kv = h, dh = d / h, xKv = x, nKeys = n, queryPosition = 0 } = {}) {
  const q = linear(x, n, d, w.wq, w.bq, h * dh), k = linear(xKv, nKeys, d, w.wk, w.bk, kv * dh), v = linear(xKv, nKeys, d, w.wv, w.bv, kv * dh);
  const concat = new Float64Array(n * h * dh);
  const weights = [];
  for (let head = 0; head < h; head++) {
    const g = Math.floor(head / (h / kv)); // the key/value head this query head reads
    const a = new Float64Array(n * nKeys);
    for (let i = 0; i < n; i++) {
      const visible = (j) => !(causal && j > queryPosition + i) && (!keyMask || keyMask[j]);
      const row = a.subarray(i * nKeys, (i + 1) * nKeys);
      let max = -Infinity;
      for (let j = 0; j < nKeys; j++) {
        if (!visible(j)) continue;
        let dot = 0;
        for (let p = 0; p < dh; p++) dot += q[i * h * dh + head * dh + p] * k[j * kv * dh + g * dh + p];
        row[j] = dot / Math.sqrt(dh);
        max = Math.max(max, row[j]);
      }
      let sum = 0;
      for (let j = 0; j < nKeys; j++) sum += (row[j] = visible(j) ? Math.exp(row[j] - max) : 0);
      for (let j = 0; j < nKeys; j++) row[j] = sum > 0 ? row[j] / sum : 0;
      for (let p = 0; p < dh; p++) {
        let acc = 0;
        for (let j = 0; j < nKeys; j++) acc += row[j] * v[j * kv * dh + g * dh + p];
        concat[i * h * dh + head * dh + p] = acc;
      }
    }
    weights.push(a);
  }
  return { weights, output: linear(concat, n, h * dh, w.wo, w.bo, d) };
}

/** Largest absolute difference between two equally long arrays. */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) throw new Error(`lengths differ: ${a.length} vs ${b.length}`);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

/**
 * Reads one whole-model case folder (tests/fixtures/models/<model>/<case>, tests/fixtures/checkpoints/
 * <checkpoint>/cases/<case>): the text, the sizes, and each tensor file its case.txt lists, checked
 * against the shape written there. Keys: ids, attention (L, H, n, n), hidden (n, d), and, where
 * present, inputs (L, n, d), logits (n, vocab) and ablation (L, H: 0 on, 1 zeroed, 2 mean); an
 * encoder–decoder's (tests/fixtures/seq2seq) source, target, encoder_attention, …, and sourceText, targetText.
 */
export function readModelCase(dir) {
  const lines = readFileSync(`${dir}/case.txt`, 'utf8').trim().split('\n');
  const value = (key) => Number(lines.find((l) => l.startsWith(`${key} `))?.split(' ')[1]);
  const out = { text: lines[0].replace(/^text /, ''), n: value('n_tokens'), layers: value('n_layers'),
    heads: value('n_heads'), d: value('d_model'), vocab: value('vocab_size') };
  for (const line of lines.filter((l) => l.startsWith('tensor '))) {
    const [, file, ...dims] = line.split(' ');
    const bytes = readFileSync(`${dir}/${file}`);
    const Type = { i32: Int32Array, f32: Float32Array, u8: Uint8Array }[file.split('.').pop()];
    const values = new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    if (values.length !== dims.reduce((a, b) => a * Number(b), 1)) throw new Error(`${dir}/${file} does not hold ${dims.join(' × ')} values`);
    out[file.replace(/\.\w+$/, '')] = values;
  }
  // An encoder–decoder case's source_text and target_text, as sourceText and targetText.
  for (const [, key, text] of lines.map((l) => /^(\w+)_text (.*)$/.exec(l)).filter(Boolean)) out[`${key}Text`] = text;
  return out;
}

/**
 * Each checkpoint of tests/fixtures/checkpoints has its tokenizer in two layouts (see its
 * README): the current one, and the older one the Hub's bert-base-uncased, roberta-base and gpt2
 * files have. The checkpoint tests run with each; this is the file of each layout.
 */
export const TOKENIZER_LAYOUTS = [['current', 'tokenizer.json'], ['older', 'tokenizer.old.json']];
const tokenizerFile = (layout) => TOKENIZER_LAYOUTS.find(([name]) => name === layout)[1];

/** loadModel's source for the checkpoint folder `dir` (a path ending in /) with its tokenizer in `layout`. */
export function checkpointSource(dir, layout) {
  const url = (file) => new URL(`file://${dir}${file}`);
  return { config: url('config.json'), tokenizer: url(tokenizerFile(layout)), weights: url('model.safetensors') };
}

/** A fake-Hub repository (tests/hub/fake-hub.js) of the checkpoint folder `dir`, its tokenizer in `layout`. */
export function checkpointRepo(dir, layout) {
  const read = (file) => readFileSync(`${dir}${file}`);
  return { files: { 'config.json': read('config.json'), 'tokenizer.json': read(tokenizerFile(layout)), 'model.safetensors': read('model.safetensors') } };
}
