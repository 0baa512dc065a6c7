// The three encoder–decoder architectures loaded from the fake Hub under their real ids in
// Chromium, in every WASM build, against the float64 references of tests/fixtures/seq2seq: the
// source's and the decoder's ids exactly, the encoder's, the decoder's and the cross-attention to
// 1e-5, the logits to 1e-4 of their largest magnitude, and greedy writing the reference's 32 tokens
// (up to the </s> that ends it), each step's cross row that of a whole run over the written target.
// Marian's repository has only source.spm, target.spm and vocab.json for its tokenizer, as
// Helsinki-NLP's have.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { maxAbsDiff, readModelCase } from '../js/helpers.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DIR = `${REPO}tests/fixtures/seq2seq/`;
const MODELS = [
  ['google-t5/t5-small', 't5-small', 't5'], ['google/flan-t5-small', 'flan-t5', 't5'],
  ['facebook/bart-base', 'bart', 'bart'], ['Helsinki-NLP/opus-mt-en-de', 'marian', 'marian'],
];

let browser, server, hub, page, problems;
beforeAll(async () => {
  [browser, server, hub] = await Promise.all([
    launchBrowser(), startServer({ root: REPO }),
    startFakeHub({ repos: Object.fromEntries(MODELS.map(([id, folder]) => [id, { folder: `${DIR}${folder}` }])) }),
  ]);
  ({ page, problems } = await browser.open(`${server.url}tests/e2e/pages/hub-models.html`));
  await page.waitForFunction(() => window.__done);
}, 60000);
afterAll(async () => {
  await page?.close();
  await Promise.all([browser?.close(), server?.close(), hub?.close()]);
});

describe.each(['relaxed-simd', 'simd', 'scalar'])('the %s build in Chromium', (build) => {
  test.each(MODELS)('%s matches its float64 reference and writes its greedy tokens', async (id, folder, architecture) => {
    const f = readModelCase(`${DIR}${folder}/cases/sentence`);
    const greedy = JSON.parse(readFileSync(`${DIR}${folder}/greedy.json`, 'utf8'));
    const r = await page.evaluate((args) => window.runSeq2seqModel(args),
      { id, hubUrl: hub.url, source: f.sourceText, target: f.targetText, build, maxNewTokens: greedy.ids.length });
    expect(r.build).toBe(build);
    expect(r.architecture).toBe(architecture);
    expect(r.ids).toEqual(Array.from(f.source));
    expect(r.targetIds).toEqual(Array.from(f.target));
    const diffs = {
      encoder: maxAbsDiff(r.encoder, f.encoder_attention), decoder: maxAbsDiff(r.decoder, f.decoder_attention),
      cross: maxAbsDiff(r.cross, f.cross_attention),
    };
    const scale = f.logits.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const logits = maxAbsDiff(r.logits, f.logits) / scale;
    console.log(`[seq2seq chromium ${build}] ${id}: attention encoder ${diffs.encoder.toExponential(2)}, decoder ` +
      `${diffs.decoder.toExponential(2)}, cross ${diffs.cross.toExponential(2)}; logits ${logits.toExponential(2)} of their largest; ` +
      `${r.written.length} greedy tokens, rows ${r.rows.toExponential(2)}`);
    for (const diff of Object.values(diffs)) expect(diff).toBeLessThan(1e-5);
    expect(logits).toBeLessThan(1e-4);
    // The reference writes on past </s>; the writing stops there.
    expect(r.written.length).toBeGreaterThan(0);
    expect(r.written).toEqual(greedy.ids.slice(0, r.written.length));
    expect(r.rows).toBeLessThan(1e-5);
  }, 60000);
});

test('no console errors, page errors or failed requests', () => {
  expect(problems).toEqual([]);
});
