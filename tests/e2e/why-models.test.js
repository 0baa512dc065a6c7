// The "why" tools in Chromium, in every WASM build: each checkpoint with an LM head, served by the
// fake Hub and loaded in a page (tests/e2e/pages/hub-models.html), computes the parts of a logit,
// the logit lens and both patching sweeps, checked against tools/make_why_fixtures.py's float64
// reference as tests/js/analysis/why.test.js checks them in Node (tests/js/why-reference.js), and
// the last layer's first head's query–key map, which must be Node's (checked there against a
// float64 PCA) up to each axis's sign.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { loadEngine } from '../../web/src/index.js';
import { checkpointRepo, readModelCase } from '../js/helpers.js';
import { expectWhy } from '../js/why-reference.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DIR = `${REPO}tests/fixtures/checkpoints/`;
const CHECKPOINTS = readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(`${DIR}${e.name}/why.json`)).map((e) => e.name).sort();
const repoId = (checkpoint) => `multihead-test/${checkpoint}`;

let browser, server, hub, page, problems, engine;
beforeAll(async () => {
  [browser, server, hub, engine] = await Promise.all([
    launchBrowser(), startServer({ root: REPO }),
    startFakeHub({ repos: Object.fromEntries(CHECKPOINTS.map((c) => [repoId(c), checkpointRepo(`${DIR}${c}/`, 'current')])) }),
    loadEngine(),
  ]);
  ({ page, problems } = await browser.open(`${server.url}tests/e2e/pages/hub-models.html`));
  await page.waitForFunction(() => window.__done);
}, 60000);
afterAll(async () => {
  engine?.dispose();
  await page?.close();
  await Promise.all([browser?.close(), server?.close(), hub?.close()]);
});

/** |got − want| at most `tolerance` everywhere, for each axis (x, y) after flipping got's sign where it disagrees. */
function expectUpToSign(got, want, tolerance) {
  for (const axis of [0, 1]) {
    let dot = 0;
    for (let i = axis; i < want.length; i += 2) dot += got[i] * want[i];
    const sign = dot < 0 ? -1 : 1;
    let worst = 0;
    for (let i = axis; i < want.length; i += 2) worst = Math.max(worst, Math.abs(sign * got[i] - want[i]));
    expect(worst).toBeLessThan(tolerance);
  }
}

describe.each(['relaxed-simd', 'simd', 'scalar'])('the %s build in Chromium', (build) => {
  test.each(CHECKPOINTS)('%s: contributions, the logit lens, patching and the query–key map', async (checkpoint) => {
    const want = JSON.parse(readFileSync(`${DIR}${checkpoint}/why.json`, 'utf8'));
    const { text } = readModelCase(`${DIR}${checkpoint}/cases/sentence`);
    const got = await page.evaluate((args) => window.whyHubModel(args), { id: repoId(checkpoint), hubUrl: hub.url, text, build, want });
    expect(got.build).toBe(build);
    const softcap = JSON.parse(readFileSync(`${DIR}${checkpoint}/config.json`, 'utf8')).final_logit_softcapping;
    expectWhy(got, want, `${checkpoint} in Chromium`, softcap);
    const model = await engine.loadModel(`${DIR}${checkpoint}`);
    try {
      const map = model.run(text).queryKeyMap(model.numLayers - 1, 0);
      expectUpToSign(got.queryKeys.queries, Array.from(map.queries), 1e-4);
      expectUpToSign(got.queryKeys.keys, Array.from(map.keys), 1e-4);
      got.queryKeys.explained.forEach((share, i) => expect(Math.abs(share - map.explained[i])).toBeLessThan(1e-4));
    } finally {
      model.dispose();
    }
    expect(problems).toEqual([]);
  }, 60000);
});
