// The "why" tools against tools/make_why_fixtures.py's float64 reference (each checkpoint's
// why.json), on every architecture's fixture with an LM head, in every WASM build in Node (the
// checks and tolerances are tests/js/why-reference.js's; tests/e2e/why-models.test.js makes the
// same in Chromium). The reference patches naively, from the embeddings; the engine starts each
// patched run at the layer it patches.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { BUILDS, readModelCase } from '../helpers.js';
import { computeWhy, expectWhy } from '../why-reference.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/', import.meta.url));
const CHECKPOINTS = readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(`${DIR}${e.name}/why.json`)).map((e) => e.name).sort();
const reference = (checkpoint) => JSON.parse(readFileSync(`${DIR}${checkpoint}/why.json`, 'utf8'));

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
      const softcap = JSON.parse(readFileSync(`${DIR}${checkpoint}/config.json`, 'utf8')).final_logit_softcapping;
      expectWhy(await computeWhy(model, text, want), want, checkpoint, softcap);
    } finally {
      model.dispose();
    }
  }, 120000);
});
