// The "why" tools on the causal built-in model's Henry/William example, in every WASM build: the
// parts add up to the logit, and activation patching with the second name swapped (" william"
// against " james", the name the corrupted prompt puts in its place) puts the two induction heads,
// layer 1 (counted from 0) heads 0 and 3, at the top of the map; patching the residual entering
// layer 0 at the swapped name gives exactly 1 and anywhere else exactly 0, since a patched run is
// computed bit for bit as the runs it is normalised by. Then what callers get wrong: texts of
// different lengths, a token that is two, a disposed model, an aborted sweep.
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS } from '../helpers.js';

const CLEAN = 'Yesterday Henry met William at the station. Today Henry met';
const CORRUPTED = 'Yesterday Henry met James at the station. Today Henry met';

describe.each(BUILDS)('the %s build', (build, options) => {
  let engine, gpt;
  beforeAll(async () => {
    engine = await loadEngine(options);
    gpt = await engine.loadModel({ builtin: 'causal' });
  });
  afterAll(() => engine.dispose());

  test('patching the swapped name: the induction heads lead, and layer 0\'s residual gives exactly 1 or 0', async () => {
    const heads = await gpt.patch({ clean: CLEAN, corrupted: CORRUPTED, token: ' william', against: ' james' });
    expect([heads.token.text, heads.against.text]).toEqual(['william', 'james']);
    const ranked = heads.values.flatMap((row, layer) => Array.from(row, (value, head) => ({ layer, head, value })))
      .sort((a, b) => b.value - a.value);
    expect(ranked.slice(0, 2).map(({ layer, head }) => [layer, head]).sort()).toEqual([[1, 0], [1, 3]]);
    const positions = await gpt.patch({ clean: CLEAN, corrupted: CORRUPTED, token: ' william', against: ' james', over: 'positions' });
    const swapped = heads.tokens.clean.findIndex((t, i) => t !== heads.tokens.corrupted[i]);
    expect(Array.from(positions.values[0])).toEqual(heads.tokens.clean.map((t, i) => (i === swapped ? 1 : 0)));
  });

  test('the parts of the prediction add up to its logit, with and without heads switched off', () => {
    for (const ablate of [undefined, [{ layer: 1, head: 0 }, { layer: 1, head: 3 }]]) {
      const run = gpt.run(CLEAN, { ablate });
      const parts = run.contributions(run.ids.length - 1, { token: ' william', against: ' james' });
      expect(Math.abs(parts.total - parts.logit)).toBeLessThan(1e-4 * Math.max(1, Math.abs(parts.logit)));
      const logits = run.logits(run.ids.length - 1);
      expect(Math.abs(parts.logit - (logits[parts.token.id] - logits[parts.against.id]))).toBeLessThan(1e-4);
    }
  });

  test('what callers get wrong is refused, naming it', async () => {
    await expect(gpt.patch({ clean: CLEAN, corrupted: `${CORRUPTED} again` })).rejects.toThrow(/the clean prompt has 12 tokens and the corrupted one 13/);
    await expect(gpt.patch({ clean: CLEAN, corrupted: CORRUPTED, token: ' william james' })).rejects.toThrow(/token must be one token .* is 2 tokens/);
    await expect(gpt.patch({ clean: CLEAN, corrupted: CORRUPTED, over: 'layers' })).rejects.toThrow(/over must be 'heads' or 'positions'/);
    const run = gpt.run(CLEAN);
    expect(() => run.contributions(99)).toThrow(/position/);
    expect(() => run.contributions(0, { against: 1e9 })).toThrow(/against/);
    const controller = new AbortController();
    controller.abort();
    await expect(gpt.patch({ clean: CLEAN, corrupted: CORRUPTED, signal: controller.signal })).rejects.toThrow(/abort/i);
    // The engine keeps working afterwards.
    expect(run.logitLens(0, 3)).toHaveLength(gpt.numLayers + 1);
  });
});

test('a disposed model\'s results say why they cannot explain', async () => {
  const engine = await loadEngine();
  const gpt = await engine.loadModel({ builtin: 'causal' });
  const run = gpt.run(CLEAN);
  gpt.dispose();
  expect(() => run.contributions(3)).toThrow(/disposed/);
  await expect(gpt.patch({ clean: CLEAN, corrupted: CORRUPTED })).rejects.toThrow(/disposed/);
  engine.dispose();
});
