// The "why" tools checked against tools/make_why_fixtures.py's float64 reference (a checkpoint's
// why.json), in two halves so Node and Chromium check alike: computeWhy runs the tools on a loaded
// model and returns plain arrays (it imports nothing, so a test page can run it and post the
// answer back), and expectWhy compares them with the reference in Jest. Tolerances: each part of
// the logit (difference) to 1e-4 of the largest, their sum against the logit to 1e-4 relative,
// the lens's ids exactly and its probabilities to 1e-4, and patching's values as logit differences
// (value × (clean − corrupted)) to 1e-4.

const plainParts = (c) => ({
  parts: [...c.heads.flatMap((h) => Array.from(h)), ...Array.from(c.mlps), c.embeddings, c.biases],
  total: c.total, logit: c.logit, against: c.against, softcap: c.softcap,
});

/** What the engine computes for `want`'s prompt (`text`, which tokenizes to want.ids) on `model`. */
export async function computeWhy(model, text, want) {
  const result = model.run(text);
  const p = want.position;
  const lens = result.logitLens(p, 5).map((entry) => entry.map(({ id, probability }) => ({ id, probability })));
  const predictions = result.predictions(p, 5).map(({ id, probability }) => ({ id, probability }));
  const patches = {};
  for (const over of ['heads', 'positions']) {
    const patched = await model.patch({ clean: want.ids, corrupted: want.corrupted, token: want.patch_token, against: want.patch_against, over, position: p });
    patches[over] = { clean: patched.clean, corrupted: patched.corrupted, values: patched.values.map((row) => Array.from(row)) };
  }
  return {
    ids: Array.from(result.ids), numLayers: model.numLayers,
    difference: plainParts(result.contributions(p, { token: want.token, against: want.against })),
    alone: plainParts(result.contributions(p, { token: want.token })),
    lens, predictions, patches,
  };
}

function expectParts(got, want, label) {
  const flat = (c) => [...c.heads.flat(), ...c.mlps, c.embeddings, c.biases];
  const scale = Math.max(1, ...flat(want).map(Math.abs));
  const worst = Math.max(...got.parts.map((v, i) => Math.abs(v - flat(want)[i])));
  expect({ label, worst: worst < 1e-4 * scale }).toEqual({ label, worst: true });
  expect(Math.abs(got.total - got.logit)).toBeLessThan(1e-4 * Math.max(1, Math.abs(got.logit)));
  expect(Math.abs(got.logit - want.logit)).toBeLessThan(1e-4 * Math.max(1, Math.abs(want.logit)));
}

/** Jest's checks of computeWhy's answer `got` against the reference `want`; `softcap` is config.json's final_logit_softcapping. */
export function expectWhy(got, want, label, softcap) {
  expect(got.ids).toEqual(want.ids);
  expectParts(got.difference, want.contributions, `${label} difference`);
  expectParts(got.alone, want.contributions_token, `${label} token`);
  expect(got.alone.against).toBeNull();
  // Gemma's final soft cap is left out of the parts, and the result names it.
  expect(got.alone.softcap).toBe(softcap ?? null);
  // The lens: the reference's top five at every layer, and the last is the model's prediction.
  expect(got.lens).toHaveLength(got.numLayers + 1);
  got.lens.forEach((entry, i) => {
    expect(entry.map((t) => t.id)).toEqual(want.lens[i].map((t) => t.id));
    entry.forEach((t, j) => expect(Math.abs(t.probability - want.lens[i][j].probability)).toBeLessThan(1e-4));
  });
  expect(got.lens.at(-1)).toEqual(got.predictions);
  // Patching, both sweeps, compared as logit differences.
  for (const over of ['heads', 'positions']) {
    const patched = got.patches[over];
    expect(Math.abs(patched.clean - want.patch.clean)).toBeLessThan(1e-4);
    expect(Math.abs(patched.corrupted - want.patch.corrupted)).toBeLessThan(1e-4);
    const range = want.patch.clean - want.patch.corrupted;
    expect(patched.values).toHaveLength(got.numLayers);
    patched.values.forEach((row, layer) => row.forEach((v, i) => {
      const off = Math.abs(v - want.patch[over][layer][i]) * Math.abs(range);
      expect({ at: [label, over, layer, i], off: off < 1e-4 }).toEqual({ at: [label, over, layer, i], off: true });
    }));
  }
}
