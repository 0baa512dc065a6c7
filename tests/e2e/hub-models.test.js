// Every architecture loaded from the Hub in Chromium, in both WASM builds: each checkpoint of
// tests/fixtures/checkpoints, with its tokenizer in each of its two layouts, served by the fake Hub
// on another origin (its 302 to a CDN origin,
// CORS, Range, and the browser's Cache API on the way), loaded by engine.loadModel(id, { hubUrl })
// in a page, against the float64 PyTorch references: the ids exactly, attention, each layer's
// input and the final hidden states to 1e-4, the logits to 1e-3 of their largest magnitude. Each
// causal checkpoint writes greedily the 32 tokens its float64 reference writes (greedy.json),
// each step's attention rows those of a whole run over the written text to 1e-5. The encoder–decoders
// of tests/fixtures/seq2seq (T5, Flan-T5, BART, Marian) load under their real Hub ids, Marian's
// tokenizer from source.spm, target.spm and vocab.json alone, and match their float64 references:
// the source's and the decoder's ids exactly, the encoder's, the decoder's and the cross-attention
// to 1e-5, the logits to 1e-4 of their largest, and greedy writing the reference's tokens (up to
// the </s> that ends it), each step's cross row that of a whole run over the written target.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { startFakeHub } from '../hub/fake-hub.js';
import { checkpointRepo, readModelCase, TOKENIZER_LAYOUTS } from '../js/helpers.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DIR = `${REPO}tests/fixtures/checkpoints/`;
const CHECKPOINTS = readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
// One plain case per checkpoint: the ablated cases need run options, which checkpoints.test.js covers.
const plain = (checkpoint) => readdirSync(`${DIR}${checkpoint}/cases`).sort()
  .find((name) => !existsSync(`${DIR}${checkpoint}/cases/${name}/ablation.u8`));
const CASES = CHECKPOINTS.flatMap((checkpoint) => TOKENIZER_LAYOUTS.map(([layout]) => [checkpoint, plain(checkpoint), layout]));
const repoId = (checkpoint, layout) => `multihead-test/${checkpoint}-${layout}-tokenizer`;
// The text greedy.json's tokens were written after (tools/make_checkpoints.py).
const GREEDY_TEXT = 'The children were walking slowly to the old river.';
const CAUSAL = CHECKPOINTS.filter((checkpoint) => existsSync(`${DIR}${checkpoint}/greedy.json`));
const SEQ2SEQ_DIR = `${REPO}tests/fixtures/seq2seq/`;
const SEQ2SEQ = [ // [Hub id, fixture folder, architecture]
  ['google-t5/t5-small', 't5-small', 't5'], ['google/flan-t5-small', 'flan-t5', 't5'],
  ['facebook/bart-base', 'bart', 'bart'], ['Helsinki-NLP/opus-mt-en-de', 'marian', 'marian'],
];

let browser, server, hub, page, problems;
beforeAll(async () => {
  [browser, server, hub] = await Promise.all([
    launchBrowser(), startServer({ root: REPO }),
    startFakeHub({ repos: {
      ...Object.fromEntries(CASES.map(([c, , layout]) => [repoId(c, layout), checkpointRepo(`${DIR}${c}/`, layout)])),
      ...Object.fromEntries(SEQ2SEQ.map(([id, folder]) => [id, { folder: `${SEQ2SEQ_DIR}${folder}` }])),
    } }),
  ]);
  ({ page, problems } = await browser.open(`${server.url}tests/e2e/pages/hub-models.html`));
  await page.waitForFunction(() => window.__done);
}, 60000);
afterAll(async () => {
  await page?.close();
  await Promise.all([browser?.close(), server?.close(), hub?.close()]);
});

const largestDiff = (got, want) => {
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  return got.length === want.length ? worst : Infinity;
};

describe.each(['relaxed-simd', 'simd', 'scalar'])('the %s build in Chromium', (build) => {
  test.each(CASES)('%s from the fake Hub matches PyTorch on its %s case (tokenizer layout: %s)', async (checkpoint, name, layout) => {
    const f = readModelCase(`${DIR}${checkpoint}/cases/${name}`);
    const r = await page.evaluate((args) => window.runHubModel(args), { id: repoId(checkpoint, layout), hubUrl: hub.url, text: f.text, build });
    expect(r.build).toBe(build);
    expect(r.ids).toEqual(Array.from(f.ids));
    const { n, d, heads } = f;
    let attention = 0, inputs = 0;
    r.attention.forEach((layer, l) => {
      layer.forEach((weights, h) => {
        const start = (l * heads + h) * n * n;
        attention = Math.max(attention, largestDiff(weights, f.attention.subarray(start, start + n * n)));
      });
      inputs = Math.max(inputs, largestDiff(r.inputs[l], f.inputs.subarray(l * n * d, (l + 1) * n * d)));
    });
    const hidden = largestDiff(r.hidden, f.hidden);
    expect(r.attention).toHaveLength(f.layers);
    expect(attention).toBeLessThan(1e-4);
    expect(inputs).toBeLessThan(1e-4);
    expect(hidden).toBeLessThan(1e-4);
    expect(r.logits === null).toBe(!f.logits);
    if (f.logits) {
      const largest = f.logits.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      const logits = Math.max(...r.logits.map((row, p) => largestDiff(row, f.logits.subarray(p * f.vocab, (p + 1) * f.vocab))));
      expect(logits).toBeLessThan(1e-3 * largest);
    }
    process.stdout.write(`[hub in Chromium] ${build} ${checkpoint}/${name} (${r.architecture}, ${layout} tokenizer): max |diff| attention ` +
      `${attention.toExponential(2)}, inputs ${inputs.toExponential(2)}, hidden ${hidden.toExponential(2)}\n`);
    expect(problems).toEqual([]);
  }, 60000);

  test.each(CAUSAL)('%s writes greedily what its float64 reference writes, each step\'s rows a whole run\'s', async (checkpoint) => {
    const expected = JSON.parse(readFileSync(`${DIR}${checkpoint}/greedy.json`, 'utf8'));
    const id = repoId(checkpoint, TOKENIZER_LAYOUTS[0][0]);
    const r = await page.evaluate((args) => window.writeHubModel(args), { id, hubUrl: hub.url, text: GREEDY_TEXT, build, maxNewTokens: 32 });
    expect(r.build).toBe(build);
    expect(r.prompt).toEqual(expected.prompt);
    expect(r.ids).toEqual(expected.output);
    expect(r.rows).toBeLessThan(1e-5);
    expect(problems).toEqual([]);
  }, 60000);

  test.each(SEQ2SEQ)('%s matches its float64 reference and writes its greedy tokens', async (id, folder, architecture) => {
    const f = readModelCase(`${SEQ2SEQ_DIR}${folder}/cases/sentence`);
    const greedy = JSON.parse(readFileSync(`${SEQ2SEQ_DIR}${folder}/greedy.json`, 'utf8'));
    const r = await page.evaluate((args) => window.runSeq2seqModel(args),
      { id, hubUrl: hub.url, source: f.sourceText, target: f.targetText, build, maxNewTokens: greedy.ids.length });
    expect(r.build).toBe(build);
    expect(r.architecture).toBe(architecture);
    expect(r.ids).toEqual(Array.from(f.source));
    expect(r.targetIds).toEqual(Array.from(f.target));
    const diffs = { encoder: largestDiff(r.encoder, f.encoder_attention), decoder: largestDiff(r.decoder, f.decoder_attention), cross: largestDiff(r.cross, f.cross_attention) };
    const logits = largestDiff(r.logits, f.logits) / f.logits.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    process.stdout.write(`[hub in Chromium] ${build} ${id}: max |diff| attention encoder ${diffs.encoder.toExponential(2)}, decoder ` +
      `${diffs.decoder.toExponential(2)}, cross ${diffs.cross.toExponential(2)}; logits ${logits.toExponential(2)} of their largest; ` +
      `${r.written.length} greedy tokens, rows ${r.rows.toExponential(2)}\n`);
    for (const diff of Object.values(diffs)) expect(diff).toBeLessThan(1e-5);
    expect(logits).toBeLessThan(1e-4);
    // The reference writes on past </s>; the writing stops there.
    expect(r.written.length).toBeGreaterThan(0);
    expect(r.written).toEqual(greedy.ids.slice(0, r.written.length));
    expect(r.rows).toBeLessThan(1e-5);
    expect(problems).toEqual([]);
  }, 60000);
});
