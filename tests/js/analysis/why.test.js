// The "why" tools against tools/make_why_fixtures.py's float64 reference (each checkpoint's
// why.json), on every architecture's fixture with an LM head, in every WASM build: direct logit
// attribution's parts (each head, MLP, the embeddings, the biases) to 1e-4 of the largest part,
// and their sum against the model's own logit difference to 1e-4 relative; the logit lens's ids and
// probabilities to 1e-4; activation patching's head and position sweeps, whose values (normalised
// logit differences) are compared as logit differences, to 1e-4. The reference patches naively,
// from the embeddings; the engine starts each patched run at the layer it patches.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, readModelCase } from '../helpers.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));
const CHECKPOINTS = readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(`${DIR}${e.name}/why.json`)).map((e) => e.name).sort();
const reference = (checkpoint) => JSON.parse(readFileSync(`${DIR}${checkpoint}/why.json`, 'utf8'));

function expectParts(got, want, label) {
  const flat = (c) => [...c.heads.flatMap((h) => Array.from(h)), ...Array.from(c.mlps), c.embeddings, c.biases];
  const scale = Math.max(1, ...flat(want).map(Math.abs));
  const worst = Math.max(...flat(got).map((v, i) => Math.abs(v - flat(want)[i])));
  expect({ label, worst: worst < 1e-4 * scale }).toEqual({ label, worst: true });
  expect(Math.abs(got.total - got.logit)).toBeLessThan(1e-4 * Math.max(1, Math.abs(got.logit)));
  expect(Math.abs(got.logit - want.logit)).toBeLessThan(1e-4 * Math.max(1, Math.abs(want.logit)));
}

test('every architecture with an LM head has a reference', () => {
  expect(CHECKPOINTS.length).toBe(14);
});

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine;
  beforeAll(async () => {
    engine = await loadEngine(options);
  });
  afterAll(() => engine.dispose());

  test.each(CHECKPOINTS)('%s: contributions, the logit lens and patching match the float64 reference', async (checkpoint) => {
    const want = reference(checkpoint);
    const model = await engine.loadModel(`${DIR}${checkpoint}`);
    try {
      const { text } = readModelCase(`${DIR}${checkpoint}/cases/sentence`);
      const result = model.run(text);
      expect(Array.from(result.ids)).toEqual(want.ids);
      const p = want.position;
      expectParts(result.contributions(p, { token: want.token, against: want.against }), want.contributions, `${checkpoint} difference`);
      const alone = result.contributions(p, { token: want.token });
      expectParts(alone, want.contributions_token, `${checkpoint} token`);
      expect(alone.against).toBeNull();
      // Gemma's final soft cap is left out of the parts, and the result names it.
      expect(alone.softcap).toBe(JSON.parse(readFileSync(`${DIR}${checkpoint}/config.json`, 'utf8')).final_logit_softcapping ?? null);
      // The lens: the reference's top five at every layer, and the last is the model's prediction.
      const lens = result.logitLens(p, 5);
      expect(lens).toHaveLength(model.numLayers + 1);
      lens.forEach((entry, i) => {
        expect(entry.map((t) => t.id)).toEqual(want.lens[i].map((t) => t.id));
        entry.forEach((t, j) => expect(Math.abs(t.probability - want.lens[i][j].probability)).toBeLessThan(1e-4));
      });
      expect(lens.at(-1)).toEqual(result.predictions(p, 5));
      // Patching, both sweeps, compared as logit differences: value × (clean − corrupted).
      for (const over of ['heads', 'positions']) {
        const patched = await model.patch({ clean: want.ids, corrupted: want.corrupted, token: want.patch_token, against: want.patch_against, over, position: p });
        expect(Math.abs(patched.clean - want.patch.clean)).toBeLessThan(1e-4);
        expect(Math.abs(patched.corrupted - want.patch.corrupted)).toBeLessThan(1e-4);
        const range = want.patch.clean - want.patch.corrupted;
        const expected = want.patch[over];
        expect(patched.values).toHaveLength(model.numLayers);
        patched.values.forEach((row, layer) => row.forEach((v, i) => {
          expect({ at: [over, layer, i], off: Math.abs(v - expected[layer][i]) * Math.abs(range) < 1e-4 }).toEqual({ at: [over, layer, i], off: true });
        }));
      }
    } finally {
      model.dispose();
    }
  }, 120000);
});
