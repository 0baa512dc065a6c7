// The page's state for an encoder–decoder (T5, BART, Marian): the attention on screen (encoder,
// decoder or cross) is part of what a run is asked for and of the link, the alignment view shows
// the cross-attention, each stack has its own layers, heads switched off name their stack, a
// writing grows a cross-attention's rows over the fixed source columns, and the model view pools
// rectangles. Pure functions over the store, as tests/js/page/store.test.js does for one-stack models.
import { createStore } from '../../../web/demo/state/store.js';
import { settings, shownAblated, shownLayer, shownStack } from '../../../web/demo/state/settings.js';
import { ui } from '../../../web/demo/state/ui.js';
import { canWrite, inputsKey, needed, predictsNext } from '../../../web/demo/state/needed.js';
import { result, session } from '../../../web/demo/session.js';
import { linkState } from '../../../web/demo/url-sync.js';
import { readUrlState, urlHash } from '../../../web/demo/url-state.js';
import { grownRun, promptRun } from '../../../web/demo/state/writing.js';
import { overviewOf, viewData } from '../../../web/src/views/view-data.js';

const MARIAN = {
  numLayers: 2, numDecoderLayers: 3, numHeads: 4, dModel: 32, causal: false, hasLmHead: true, encoderDecoder: true, translates: true,
  taskPrefixes: {}, maxTokens: 64, build: 'relaxed-simd', threads: 2, fallback: '', kvHeads: [0, 1, 2, 3], windows: [null, null],
};

function page({ hash = '', info = MARIAN } = {}) {
  const store = createStore({ settings, session, result, ui });
  store.dispatch({ type: 'start', sentence: 'The house.', url: readUrlState(hash) });
  store.dispatch({ type: 'ready', info });
  return store;
}

test('the attention on screen is asked for, keys the run, and has its own layers; rows of the decoder and cross predict the next token', () => {
  const store = page({ hash: '#layer=3' });
  expect(shownStack(store.state)).toBe('encoder');
  expect(shownLayer(store.state)).toBe(1); // the encoder's last
  expect(needed(store.state).stack).toBe('encoder');
  expect(predictsNext(store.state)).toBe(false);
  const encoderKey = inputsKey(store.state);
  store.dispatch({ type: 'stack', value: 'cross' });
  expect(inputsKey(store.state)).not.toBe(encoderKey);
  expect(shownLayer(store.state)).toBe(2); // the decoder's third
  expect(needed(store.state)).toMatchObject({ stack: 'cross', fresh: true });
  expect(predictsNext(store.state)).toBe(true);
  expect(urlHash(linkState(store.state))).toContain('stack=cross');
  expect(urlHash(linkState(store.state))).toContain('layer=3');
});

test('the alignment view draws the cross-attention, from a click or a link', () => {
  const store = page();
  store.dispatch({ type: 'view', value: 'alignment' });
  expect(shownStack(store.state)).toBe('cross');
  expect(readUrlState('#view=alignment')).toMatchObject({ view: 'alignment' });
  expect(shownStack(page({ hash: '#view=alignment' }).state)).toBe('cross');
  expect(shownStack(page({ hash: '#view=alignment&stack=decoder' }).state)).toBe('decoder');
});

test('heads switched off name their stack, in the store and the link, and a one-stack model drops the others', () => {
  const store = page({ hash: '#ablate=c1.2,2.1,d3.4' });
  expect(store.state.settings.ablate).toEqual([{ layer: 1, head: 0 }, { layer: 2, head: 3, stack: 'decoder' }, { layer: 0, head: 1, stack: 'cross' }]);
  store.dispatch({ type: 'stack', value: 'cross' });
  expect(shownAblated(store.state)).toEqual([{ layer: 0, head: 1, stack: 'cross' }]);
  expect(shownAblated(store.state)).toBe(shownAblated(store.state)); // the same array while nothing changes
  store.dispatch({ type: 'toggle-head', layer: 2, head: 0 }); // a head of the cross-attention on screen
  store.dispatch({ type: 'toggle-head', layer: 1, head: 0, stack: 'encoder' }); // the ablation panel names the stack
  expect(store.state.settings.ablate).toEqual([{ layer: 2, head: 3, stack: 'decoder' }, { layer: 0, head: 1, stack: 'cross' }, { layer: 2, head: 0, stack: 'cross' }]);
  expect(new URLSearchParams(urlHash(linkState(store.state)).slice(1)).get('ablate')).toBe('d3.4,c1.2,c3.1');
  expect(readUrlState('#ablate=x1.1').ablate).toBeUndefined();
  const bert = page({ hash: '#ablate=c1.2,2.1', info: { ...MARIAN, encoderDecoder: false, numDecoderLayers: 0 } });
  expect(bert.state.settings.ablate).toEqual([{ layer: 1, head: 0 }]);
});

test('an encoder–decoder writes once its run is there; a writing grows the cross rows over the fixed source columns', () => {
  const store = page();
  store.dispatch({ type: 'stack', value: 'cross' });
  const asked = needed(store.state);
  store.dispatch({ type: 'sent', id: 1, asked });
  const weights = [Float32Array.of(0, 0.25, 0.75)]; // one start row over three source tokens
  store.dispatch({ type: 'answered', asked, answer: {
    type: 'result', id: 1, tokens: ['<pad>'], unknown: [false], keyTokens: ['▁The', '▁house', '</s>'], keyUnknown: [false, false, false],
    truncated: false, totalTokens: 1, causal: false, hasLmHead: true, ablated: [], ablation: null, ms: 1,
    layers: [0, 1, 2].map((layer) => ({ layer, numHeads: 1, weights })),
  } });
  expect(canWrite(store.state)).toBe(true);
  const run = store.state.result.run;
  expect(run.numLayers).toBe(3);
  const prompt = promptRun(run, 1, 'key');
  const row = Float32Array.of(0.5, 0.25, 0.25);
  const grown = grownRun(prompt, { index: 0, position: 1, id: 7, token: '▁Das', probability: 0.5, alternatives: [] }, [{ layer: 0, weights: [row] }], 'key2');
  expect(grown.tokens).toEqual(['<pad>', '▁Das']);
  expect(Array.from(grown.layers[0].weights[0])).toEqual([0, 0.25, 0.75, 0.5, 0.25, 0.25]);
  const data = viewData('head', grown, 0, { head: 0 });
  expect(data.keyTokens).toEqual(['▁The', '▁house', '</s>']);
  const alignment = viewData('alignment', { ...grown, layers: [{ numHeads: 1, weights: [grown.layers[0].weights[0]] }] }, 0);
  expect(alignment.target).toEqual(['▁Das']); // the word written, with the row that wrote it
  expect(Array.from(alignment.weights)).toEqual([0, 0.25, 0.75]);
  expect(viewData('alignment', run, 0).error).toMatch(/has written nothing yet/);
  expect(viewData('alignment', { ...run, keyTokens: undefined }, 0).error).toMatch(/choose "cross"/);
});

test('the model view pools a rectangle with one block size for both axes', () => {
  const rows = 3, cols = 5;
  const r = { tokens: ['a', 'b', 'c'], keyTokens: ['v', 'w', 'x', 'y', 'z'], numLayers: 1, numHeads: 1,
    attention: () => Float32Array.from({ length: rows * cols }, (_, k) => k) };
  const { block, labels, keyLabels, layers } = overviewOf(r, 3); // blocks of 2: rows {0,1},{2}; columns {0,1},{2,3},{4}
  expect([block, labels, keyLabels]).toEqual([2, ['tokens 1–2', 'tokens 3–3'], ['tokens 1–2', 'tokens 3–4', 'tokens 5–5']]);
  expect(Array.from(layers[0].weights[0])).toEqual([(0 + 1 + 5 + 6) / 4, (2 + 3 + 7 + 8) / 4, (4 + 9) / 2, (10 + 11) / 2, (12 + 13) / 2, 14]);
  const data = viewData('grid', { ...r, unknown: [], overview: overviewOf(r, 3) }, 'all');
  expect(data.keyTokens).toEqual(keyLabels);
});
