// Every architecture, loaded as a user loads a local checkpoint (engine.loadModel(folderPath), the
// weights streamed from the file), against the float64 PyTorch references that
// tools/make_checkpoints.py wrote from the Hugging Face definitions (tests/fixtures/checkpoints):
// the tokenizer's ids exactly; every layer's attention, each layer's input (recomputed lazily by
// trace()) and the final hidden states to 1e-4; the LM head's logits to 1e-3 of their largest
// magnitude; on both builds, with the tokenizer in each of its two layouts (the current one, and
// the older one with no model "type" that the Hub's bert-base-uncased and gpt2 files have). The
// ablated cases run with the heads PyTorch switched off.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, checkpointSource, maxAbsDiff, readModelCase, TOKENIZER_LAYOUTS } from '../helpers.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));
const folders = (dir) => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
const CHECKPOINTS = folders(DIR);
const CASES = CHECKPOINTS.flatMap((checkpoint) => folders(`${DIR}${checkpoint}/cases`).map((name) => [checkpoint, name]));
const LAYOUTS = TOKENIZER_LAYOUTS.map(([layout]) => layout);
/** Every case with each tokenizer layout: [checkpoint, case, layout]. */
const LAID_OUT = CASES.flatMap((c) => LAYOUTS.map((layout) => [...c, layout]));
const ARCHITECTURES = {
  'bert-legacy': 'bert', 'bert-plain': 'bert', 'bert-12x12': 'bert', distilbert: 'distilbert',
  roberta: 'roberta', 'gpt2-legacy': 'gpt2', 'gpt2-new': 'gpt2',
  'llama-smol': 'llama', 'llama3-scaled': 'llama', qwen2: 'qwen2', mistral: 'mistral', qwen3: 'qwen3',
  gemma3: 'gemma3_text', 'gemma3-v5': 'gemma3_text', pythia: 'gpt_neox',
};
const CAUSAL = ['gpt2', 'gpt_neox', 'llama', 'qwen2', 'mistral', 'qwen3', 'gemma3_text'];
/** [numKeyValueHeads, headDim] where they are not numHeads and dModel / numHeads. */
const SHAPES = {
  'llama-smol': [2, 8], 'llama3-scaled': [2, 16], qwen2: [2, 8], mistral: [2, 8], qwen3: [2, 16], gemma3: [1, 16], 'gemma3-v5': [2, 8],
};
/** Each layer's sliding window, where a layer has one. */
const WINDOWS = { mistral: [5, 5], gemma3: [4, 4, null], 'gemma3-v5': [3, null] };

/** run()'s options for a case's ablation.u8 (0 on, 1 zero, 2 mean), or none. */
function runOptions(codes, heads) {
  if (!codes) return undefined;
  const ablate = [...codes.keys()].filter((i) => codes[i]).map((i) => ({ layer: Math.floor(i / heads), head: i % heads }));
  return { ablate, ablation: codes.includes(2) ? 'mean' : 'zero' };
}

test('every architecture has a checkpoint with reference cases', () => {
  expect(CHECKPOINTS).toEqual(Object.keys(ARCHITECTURES).sort());
  expect(CASES.length).toBeGreaterThanOrEqual(2 * CHECKPOINTS.length);
});

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine;
  const models = {};
  beforeAll(async () => {
    engine = await loadEngine(options);
    for (const checkpoint of CHECKPOINTS) {
      models[checkpoint] = { current: await engine.loadModel(`${DIR}${checkpoint}`), older: await engine.loadModel(checkpointSource(`${DIR}${checkpoint}/`, 'older')) };
    }
  });
  afterAll(() => engine.dispose());

  test.each(Object.entries(ARCHITECTURES).flatMap((a) => LAYOUTS.map((layout) => [...a, layout])))('%s loads as %s, with its sizes from config.json (tokenizer layout: %s)', (checkpoint, architecture, layout) => {
    const model = models[checkpoint][layout];
    expect(model.architecture).toBe(architecture);
    expect(model.causal).toBe(CAUSAL.includes(architecture));
    expect([model.numKeyValueHeads, model.headDim]).toEqual(SHAPES[checkpoint] ?? [model.numHeads, model.dModel / model.numHeads]);
    const layers = Array.from({ length: model.numLayers }, (_, layer) => layer);
    expect(layers.map((layer) => model.attentionWindow(layer))).toEqual(WINDOWS[checkpoint] ?? layers.map(() => null));
    expect(model.hasLmHead).toBe(checkpoint !== 'bert-plain');
    expect(model.numLayers).toBe({ 'bert-12x12': 12, gemma3: 3 }[checkpoint] ?? 2);
    expect(model.maxTokens).toBe(checkpoint === 'qwen2' ? 128 : 64); // roberta's 66 positions start at 2; qwen2's room for its chats
  });

  test.each(LAID_OUT)('%s matches PyTorch on its %s case (tokenizer layout: %s)', (checkpoint, name, layout) => {
    const f = readModelCase(`${DIR}${checkpoint}/cases/${name}`);
    const { n, layers, heads, d } = f;
    const r = models[checkpoint][layout].run(f.text, runOptions(f.ablation, heads));
    expect(Array.from(r.ids)).toEqual(Array.from(f.ids));
    let attention = 0, inputs = 0;
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h < heads; h++) {
        const start = (l * heads + h) * n * n;
        attention = Math.max(attention, maxAbsDiff(r.attention(l, h), f.attention.subarray(start, start + n * n)));
        // The lazily recomputed trace must give the very weights the run returned.
        expect(maxAbsDiff(r.trace(l).weights(h), r.attention(l, h))).toBe(0);
      }
      inputs = Math.max(inputs, maxAbsDiff(r.layerInput(l), f.inputs.subarray(l * n * d, (l + 1) * n * d)));
    }
    const hidden = maxAbsDiff(r.hidden, f.hidden);
    let logits = 0, largest = 0;
    if (f.logits) {
      for (let p = 0; p < n; p++) {
        const expected = f.logits.subarray(p * f.vocab, (p + 1) * f.vocab);
        logits = Math.max(logits, maxAbsDiff(r.logits(p), expected));
        for (const v of expected) largest = Math.max(largest, Math.abs(v));
      }
    }
    process.stdout.write(`[checkpoint] ${build} ${checkpoint}/${name} (${layout}): max |diff| attention ${attention.toExponential(2)}, ` +
      `inputs ${inputs.toExponential(2)}, hidden ${hidden.toExponential(2)}` +
      (f.logits ? `, logits ${logits.toExponential(2)} of ${largest.toFixed(1)}` : '') + '\n');
    expect(attention).toBeLessThan(1e-4);
    expect(inputs).toBeLessThan(1e-4);
    expect(hidden).toBeLessThan(1e-4);
    if (f.logits) expect(logits).toBeLessThan(1e-3 * largest);
    else expect(() => r.logits(0)).toThrow('This model has no language-model head');
  });

  test.each(LAID_OUT.filter(([, name]) => name === 'masked'))('%s predicts at its mask what the PyTorch logits rank first (tokenizer layout: %s)', (checkpoint, name, layout) => {
    const f = readModelCase(`${DIR}${checkpoint}/cases/${name}`);
    const r = models[checkpoint][layout].run(f.text);
    const mask = r.tokens.findIndex((t) => t === '[MASK]' || t.trim() === '<mask>');
    expect(mask).toBeGreaterThan(0);
    const expected = f.logits.subarray(mask * f.vocab, (mask + 1) * f.vocab);
    const ranked = Array.from(expected.keys()).sort((a, b) => expected[b] - expected[a]).slice(0, 5);
    const predictions = r.predictions(mask, 5);
    expect(predictions.map((p) => p.id)).toEqual(ranked);
    // Probabilities: the softmax of the reference logits, most likely first.
    const max = expected[ranked[0]];
    const sum = expected.reduce((s, v) => s + Math.exp(v - max), 0);
    predictions.forEach((p, i) => {
      expect(p.probability).toBeCloseTo(Math.exp(expected[ranked[i]] - max) / sum, 4);
      expect(typeof p.token).toBe('string');
    });
  });

  // RoPE as the trace shows it: each pair (i, i + r/2) of a head's first r dimensions turned by
  // position · base^(−2i/r), the rest untouched; heads sharing a key/value head see the same keys.
  test.each([['llama-smol', 10000, 8], ['pythia', 10000, 8], ['bert-legacy', 0, 0]])('%s: trace() gives the queries and keys before and after the rotation (base %d, %d dimensions rotate)', (checkpoint, base, rotary) => {
    const model = models[checkpoint].current;
    const r = model.run('The old man saw the river, and the old man saw the river again.');
    const t = r.trace(1), n = r.ids.length, dh = model.headDim;
    for (let h = 0; h < model.numHeads; h++) {
      expect(t.kvHead(h)).toBe(Math.floor(h / (model.numHeads / model.numKeyValueHeads)));
      expect(t.keys(h)).toEqual(t.keys(t.kvHead(h) * (model.numHeads / model.numKeyValueHeads)));
      const pairs = [[t.queriesBeforeRotation(h), t.queries(h)], [t.keysBeforeRotation(h), t.keys(h)]];
      for (const [before, after] of pairs) {
        for (let p = 0; p < n; p++) {
          for (let i = 0; i < rotary / 2; i++) {
            const [a, b] = [before[p * dh + i], before[p * dh + i + rotary / 2]];
            const angle = p * base ** (-2 * i / rotary);
            expect(after[p * dh + i]).toBeCloseTo(a * Math.cos(angle) - b * Math.sin(angle), 4);
            expect(after[p * dh + i + rotary / 2]).toBeCloseTo(b * Math.cos(angle) + a * Math.sin(angle), 4);
          }
          for (let j = rotary; j < dh; j++) expect(after[p * dh + j]).toBe(before[p * dh + j]);
        }
      }
    }
  });

  test.each(LAID_OUT.filter(([, name]) => name === 'repeated'))('%s predicts after the last position what the PyTorch logits rank first there (%s case, tokenizer layout: %s)', (checkpoint, name, layout) => {
    const f = readModelCase(`${DIR}${checkpoint}/cases/${name}`);
    const r = models[checkpoint][layout].run(f.text);
    const last = r.ids.length - 1;
    const expected = f.logits.subarray(last * f.vocab, (last + 1) * f.vocab);
    const best = expected.indexOf(Math.max(...expected));
    expect(r.predictions(last, 1)[0].id).toBe(best);
  });
});
