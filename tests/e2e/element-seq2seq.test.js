// <multihead-view> with an encoder–decoder, unbundled in headless Chromium: the built-in reverser
// writes its own target and the alignment view links each written word to its source word; the
// stack attribute shows the encoder's, the decoder's or the cross-attention (rows the decoder's
// input, columns the source's), over a target attribute when one is given; its numbers are the
// engine's; a stack or the alignment view on a one-stack model, and a target past the sentence's
// 2000 characters, are clear errors.
import { fileURLToPath } from 'node:url';
import { startServer } from '../../tools/serve.js';
import { loadEngine } from '../../web/src/index.js';
import { maxAbsDiff } from '../js/helpers.js';
import { launchBrowser } from './browser.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
let browser, server, engine, reverser, page, problems;

beforeAll(async () => {
  engine = await loadEngine();
  [browser, server, reverser] = await Promise.all([launchBrowser(), startServer({ root: REPO }), engine.loadModel({ builtin: 'reverse' })]);
  ({ page, problems } = await browser.open(`${server.url}tests/e2e/pages/element.html`));
  await page.waitForFunction(() => [...document.querySelectorAll('multihead-view')].every((e) => e.state === 'ready'), null, { timeout: 30000 });
}, 60000);

afterAll(async () => {
  engine?.dispose();
  await page?.close();
  await Promise.all([browser?.close(), server?.close()]);
});

/** Adds an element with `attributes`, or sets them on the one there, and waits for it to settle: its state and the shadow root's text of `selector`. */
function settle(attributes, selector) {
  return page.evaluate(async ([attrs, sel]) => {
    let e = document.getElementById('seq2seq');
    if (!e) {
      e = document.createElement('multihead-view');
      e.id = 'seq2seq';
      document.body.append(e);
    }
    const done = new Promise((resolve) => {
      e.addEventListener('render', resolve, { once: true });
      e.addEventListener('error', resolve, { once: true });
    });
    for (const [name, value] of Object.entries(attrs)) (value === null ? e.removeAttribute(name) : e.setAttribute(name, value));
    await done;
    return { state: e.state, status: e.shadowRoot.querySelector('.status').textContent, texts: [...e.shadowRoot.querySelectorAll(sel)].map((n) => n.textContent),
      tokens: e.tokens, attention: e.attention?.map((l) => l.map((w) => [...w])) ?? null };
  }, [attributes, selector]);
}

test('the reverser writes its own target, the alignment view links each word to its source word, and every stack is the engine\'s', async () => {
  const sentence = 'red cat blue dog';
  const aligned = await settle({ model: 'reverse', sentence, view: 'alignment', layer: '2' }, '.mh-alignment-target button');
  expect(aligned.state).toBe('ready');
  const written = [];
  for await (const step of reverser.generate(sentence, { maxNewTokens: 64 })) written.push(step.id);
  const result = reverser.run(sentence, { target: { ids: written } });
  expect(aligned.texts).toEqual(result.targetTokens.slice(1));
  expect(aligned.tokens).toEqual(result.targetTokens); // the alignment view shows the cross-attention's rows
  for (const [stack, method, rows] of [['cross', 'crossAttention', result.targetTokens], ['decoder', 'decoderAttention', result.targetTokens], ['encoder', 'attention', result.tokens]]) {
    const shown = await settle({ view: 'head', stack }, '.mh-head-queries button');
    expect(shown.texts).toEqual(rows);
    const layers = stack === 'encoder' ? reverser.numLayers : reverser.numDecoderLayers;
    for (let l = 0; l < layers; l++) for (let h = 0; h < reverser.numHeads; h++) expect(maxAbsDiff(shown.attention[l][h], result[method](l, h))).toBeLessThan(1e-6);
  }
  const keys = await settle({ stack: 'cross', target: 'dog blue' }, '.mh-head-keys .mh-token');
  expect(keys.texts).toEqual(result.tokens);
  expect(keys.tokens).toEqual(['</s>', '<s>', 'dog', 'blue']);
  expect(problems).toEqual([]);
}, 60000);

test('a stack, a target or the alignment view on a one-stack model, and a bad stack, are clear errors', async () => {
  const cases = [
    [{ model: 'reverse', stack: 'sideways', target: null, view: 'head' }, 'multihead: stack must be encoder, decoder or cross, got "sideways"'],
    [{ stack: null, view: 'why' }, 'multihead: view="why" explains a one-stack model\'s prediction; an encoder–decoder\'s is not explained yet'],
    [{ model: 'default', view: 'head', stack: 'cross' }, 'multihead: stack="cross" is an encoder–decoder\'s (T5, BART, Marian); this model has one stack of layers'],
    [{ stack: null, view: 'alignment' }, 'multihead: view="alignment" draws an encoder–decoder\'s cross-attention; this model has none'],
    [{ view: 'head', target: 'x' }, 'multihead: target is an encoder–decoder\'s (T5, BART, Marian): the decoder\'s text; this model has one stack of layers'],
    [{ model: 'reverse', target: 'dog '.repeat(501) }, 'multihead: target has 2004 characters; the element takes at most 2000'],
  ];
  for (const [attributes, message] of cases) {
    const shown = await settle(attributes, '.status');
    expect([shown.state, shown.status]).toEqual(['error', message]);
  }
  expect((await settle({ target: null }, '.mh-head-queries button')).state).toBe('ready');
});
