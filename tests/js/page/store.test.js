// The page's state in Node, without a DOM or a worker: the store's reducers driven by the actions
// the page dispatches, and needed(), the pure rule for which run the session asks for. The cases
// that were bugs in the page before it had a store are here by name.
import { createStore } from '../../../web/demo/state/store.js';
import { fitToy, settings, shownHead, shownLayer } from '../../../web/demo/state/settings.js';
import { ui } from '../../../web/demo/state/ui.js';
import { canWrite, drawable, inputsKey, modelToLoad, needed } from '../../../web/demo/state/needed.js';
import { pageStatus } from '../../../web/demo/state/status.js';
import { merged, result, session } from '../../../web/demo/session.js';
import { linkState } from '../../../web/demo/url-sync.js';
import { readUrlState, urlHash } from '../../../web/demo/url-state.js';
import { viewData } from '../../../web/src/views/view-data.js';

const BERT = { numLayers: 4, numHeads: 4, dModel: 64, causal: false, hasLmHead: true, maxTokens: 128, build: 'relaxed-simd', threads: 2, fallback: '' };
const GPT = { ...BERT, numLayers: 2, causal: true };

/** A store as the page starts it, its worker ready with `info`, the sentence `sentence`. */
function page({ sentence = 'The cat sat.', hash = '', info = BERT } = {}) {
  const store = createStore({ settings, session, result, ui });
  store.dispatch({ type: 'start', sentence, url: readUrlState(hash) });
  if (info) store.dispatch({ type: 'ready', info });
  return store;
}

/**
 * What the worker would answer to `asked`: tokens from the text's words; every layer's weights for
 * fresh inputs when `fit` (as the worker sends them while they fit ALL_LAYERS_BYTES), else those asked.
 */
function answer(asked, { layers = 4, ms = 5, fit = true } = {}) {
  const tokens = asked.text.trim().split(/\s+/);
  const n = tokens.length;
  const sent = asked.fresh && fit && !asked.toy ? Array.from({ length: layers }, (_, l) => l) : asked.layers;
  return {
    type: 'result', id: 1, tokens, unknown: tokens.map(() => false), truncated: false, totalTokens: n, causal: false, hasLmHead: true,
    ablated: asked.ablate ?? [], ablation: null, ms,
    ...(sent.length ? { layers: sent.map((layer) => ({ layer, numHeads: 4, weights: [new Float32Array(n * n)] })) } : {}),
    ...(asked.overview ? { overview: { block: 1, labels: tokens, layers: Array.from({ length: layers }, () => ({ weights: [new Float32Array(n * n)] })) } } : {}),
    ...(asked.summary ? { summary: { ...asked.summary, weights: new Float32Array(n * n) } } : {}),
    ...(asked.trace !== null ? { trace: { layer: asked.trace, numHeads: 4, weights: [] } } : {}),
  };
}

/** Sends what the page needs, as the session does: returns the request. */
function send(store) {
  const asked = needed(store.state);
  store.dispatch({ type: 'sent', id: 1, asked });
  return asked;
}

describe('the store', () => {
  test('listeners run once after a burst of dispatches, with the state as it is then; an action that changes nothing notifies nobody', async () => {
    const store = page();
    await Promise.resolve();
    const seen = [];
    store.subscribe((state) => seen.push(state.settings.sentence));
    store.dispatch({ type: 'sentence', text: 'a' });
    store.dispatch({ type: 'sentence', text: 'ab' });
    await Promise.resolve();
    expect(seen).toEqual(['ab']);
    store.dispatch({ type: 'sentence', text: 'ab' });
    store.dispatch({ type: 'no such action' });
    await Promise.resolve();
    expect(seen).toEqual(['ab']);
  });

  test('every slice is frozen: only its reducer makes a new one', () => {
    const state = page().state;
    for (const slice of ['settings', 'session', 'result', 'ui']) expect(Object.isFrozen(state[slice])).toBe(true);
    expect(Object.isFrozen(state)).toBe(true);
  });
});

describe('needed(): what the page asks the worker for', () => {
  test('nothing before the worker is ready, nor for an empty sentence', () => {
    expect(needed(page({ info: null }).state)).toBeNull();
    expect(needed(page({ sentence: '  \n' }).state)).toBeNull();
    expect(pageStatus(page({ sentence: '' }).state).phase).toBe('empty');
  });

  test('new inputs ask for every layer\'s weights; the answer holds all the grid needs', () => {
    const store = page();
    const asked = send(store);
    expect(asked).toMatchObject({ text: 'The cat sat.', fresh: true, layers: [1], overview: false, summary: null, trace: null, toy: null, ablate: [] });
    expect(pageStatus(store.state).phase).toBe('busy');
    store.dispatch({ type: 'answered', asked, answer: answer(asked) });
    expect(needed(store.state)).toBeNull();
    expect(pageStatus(store.state)).toEqual({ phase: 'ready', text: '3 tokens, computed in 5.0 ms.' });
  });

  test('the model view of a short text whose every layer came draws them at once, asking for nothing', () => {
    const store = page();
    const first = send(store);
    store.dispatch({ type: 'answered', asked: first, answer: answer(first) });
    store.dispatch({ type: 'layer', value: 'all' });
    expect(needed(store.state)).toBeNull();
  });

  test('a streamed run: its layers draw as they come, in the model view and in a layer\'s view, and its answer completes it', () => {
    const store = page({ sentence: 'The cat sat' });
    const first = send(store);
    const before = [{ layer: 1, head: 2, top: { role: 'previous', score: 0.9 } }];
    store.dispatch({ type: 'answered', asked: first, answer: { ...answer(first), roles: before } });
    store.dispatch({ type: 'layer', value: 'all' });
    store.dispatch({ type: 'sentence', text: 'The cat sat.' });
    const asked = send(store);
    expect(asked).toMatchObject({ fresh: true, stream: true, overview: true });
    const roleOf = (l) => ({ layer: l, head: 0, top: { role: 'self', score: 0.7 } });
    const layer = (l) => ({ type: 'run-layers', runId: 1, layers: [{ layer: l, weights: [new Float32Array(9)], roles: [roleOf(l)] }],
      tokens: ['The', 'cat', 'sat.'], unknown: [false, false, false], truncated: false, totalTokens: 3 });
    store.dispatch({ type: 'run-layers', asked, layers: layer(0) });
    const streamed = store.state.result.run;
    // Each layer brings its roles; the other layers' from the run before stay until theirs come.
    expect(streamed).toMatchObject({ key: asked.key, streamed: true, partial: true, roles: [roleOf(0), ...before], numLayers: 4, numHeads: 4 });
    // The model view draws it, its layers still to come without weights; the line says what it said, busy.
    expect(drawable(store.state)).toBe(true);
    const rows = viewData('grid', streamed, 'all').rows;
    expect(rows.map((r) => r.weights === null)).toEqual([false, true, true, true]);
    expect(rows.map((r) => r.heads)).toEqual([4, 4, 4, 4]);
    expect(pageStatus(store.state)).toEqual({ phase: 'busy', text: '3 tokens, computed in 5.0 ms.' });
    // A layer's view draws once its layer came.
    store.dispatch({ type: 'layer', value: 2 });
    expect(drawable(store.state)).toBe(false);
    store.dispatch({ type: 'run-layers', asked, layers: layer(1) });
    expect(drawable(store.state)).toBe(false);
    store.dispatch({ type: 'run-layers', asked, layers: layer(2) });
    expect(drawable(store.state)).toBe(true);
    store.dispatch({ type: 'run-layers', asked, layers: layer(3) });
    expect(store.state.result.run.roles).toEqual([0, 1, 2, 3].map(roleOf));
    // The answer leaves out the layers streamed, and brings the roles and the summary.
    const roles = [{ layer: 0, head: 0, top: null }];
    store.dispatch({ type: 'answered', asked, answer: { ...answer({ ...asked, fresh: false, overview: false }), roles, ms: 7 } });
    const run = store.state.result.run;
    expect(run).toMatchObject({ streamed: false, partial: false, roles });
    expect(run.tokens).toBe(streamed.tokens); // the token list keeps its buttons
    expect(run.layers.map((l) => l.weights.length)).toEqual([1, 1, 1, 1]);
    store.dispatch({ type: 'layer', value: 'all' });
    expect(needed(store.state)).toBeNull();
    expect(pageStatus(store.state)).toEqual({ phase: 'ready', text: '3 tokens, computed in 7.0 ms.' });
  });

  test('a streamed layer of a run for inputs since changed is dropped; a streamed run interrupted is asked again whole', () => {
    const store = page({ sentence: 'a' });
    const asked = send(store);
    store.dispatch({ type: 'sentence', text: 'a b' });
    const streamed = { layers: [{ layer: 0, weights: [new Float32Array(1)], roles: [] }], tokens: ['a'], unknown: [false], truncated: false, totalTokens: 1 };
    store.dispatch({ type: 'run-layers', asked, layers: streamed });
    expect(store.state.result.run).toBeNull();
    // Typed back while it runs: its first layers came, then the interrupt (set and cleared too late) stopped it.
    store.dispatch({ type: 'sentence', text: 'a' });
    store.dispatch({ type: 'run-layers', asked, layers: streamed });
    expect(store.state.result.run).toMatchObject({ streamed: true });
    store.dispatch({ type: 'answered', asked, answer: { type: 'error', id: 1, message: 'the run was interrupted', interrupted: true } });
    expect(store.state.result.run).toBeNull();
    expect(needed(store.state)).toMatchObject({ text: 'a', fresh: true, stream: true });
  });

  test('a pooled model view streams its thumbnails; the answer fills in the rest', () => {
    const store = page({ sentence: 'The cat sat' });
    store.dispatch({ type: 'layer', value: 'all' });
    const asked = send(store);
    expect(asked).toMatchObject({ stream: true, overview: true });
    const tokens = ['The', 'cat', 'sat'], overview = { block: 2, labels: ['tokens 1–2', 'token 3'] };
    const thumbnails = (l) => [Float32Array.of(l, 0, 0, 1)];
    const streamed = (layers) => ({ layers: layers.map((l) => ({ layer: l, thumbnails: thumbnails(l), roles: [] })), overview, tokens, unknown: [false, false, false], truncated: false, totalTokens: 3 });
    store.dispatch({ type: 'run-layers', asked, layers: streamed([0, 1]) });
    expect(drawable(store.state)).toBe(true);
    const rows = viewData('grid', store.state.result.run, 'all').rows;
    expect(rows.map((r) => r.weights?.[0][0] ?? null)).toEqual([0, 1, null, null]);
    const rest = { block: 2, labels: overview.labels, layers: [null, null, { weights: thumbnails(2) }, { weights: thumbnails(3) }] };
    store.dispatch({ type: 'answered', asked, answer: { ...answer({ ...asked, fresh: false, overview: false }), overview: rest } });
    expect(viewData('grid', store.state.result.run, 'all').rows.map((r) => r.weights[0][0])).toEqual([0, 1, 2, 3]);
    expect(needed(store.state)).toBeNull();
  });

  test('a long text whose layers do not all fit: each view asks for what it draws, once', () => {
    const store = page();
    const first = send(store);
    store.dispatch({ type: 'answered', asked: first, answer: answer(first, { fit: false }) });
    expect(store.state.result.run.layers.flatMap((l, i) => (l ? [i] : []))).toEqual([1]);
    expect(needed(store.state)).toBeNull();
    store.dispatch({ type: 'layer', value: 2 });
    const other = needed(store.state);
    expect(other).toMatchObject({ fresh: false, layers: [2], overview: false, summary: null, trace: null });
    store.dispatch({ type: 'sent', id: 2, asked: other });
    store.dispatch({ type: 'answered', asked: other, answer: answer(other, { fit: false }) });
    expect(needed(store.state)).toBeNull();
    store.dispatch({ type: 'layer', value: 'all' });
    expect(needed(store.state)).toMatchObject({ layers: [], overview: true });
    const overview = send(store);
    store.dispatch({ type: 'answered', asked: overview, answer: answer(overview, { fit: false }) });
    expect(needed(store.state)).toBeNull();
    store.dispatch({ type: 'view', value: 'rollout' });
    store.dispatch({ type: 'layer', value: 3 });
    expect(needed(store.state)).toMatchObject({ layers: [], overview: false, summary: { kind: 'rollout', layer: 3 } });
    const rolled = send(store);
    store.dispatch({ type: 'answered', asked: rolled, answer: answer(rolled, { fit: false }) });
    expect(needed(store.state)).toBeNull();
    expect(store.state.result.run.summaries.has('rollout 3')).toBe(true);
    store.dispatch({ type: 'view', value: 'average' });
    expect(needed(store.state)).toMatchObject({ layers: [], summary: { kind: 'average', layer: 3 } }); // computed in the worker too
    const averaged = send(store);
    store.dispatch({ type: 'answered', asked: averaged, answer: answer(averaged, { fit: false }) });
    store.dispatch({ type: 'view', value: 'rollout' });
    expect(needed(store.state)).toBeNull();
  });

  test('the four-steps view asks for its layer\'s trace only, and again for another layer', () => {
    const store = page();
    const first = send(store);
    store.dispatch({ type: 'answered', asked: first, answer: answer(first) });
    store.dispatch({ type: 'view', value: 'steps' });
    const trace = needed(store.state);
    expect(trace).toMatchObject({ fresh: false, layers: [], trace: 1 });
    store.dispatch({ type: 'sent', id: 2, asked: trace });
    store.dispatch({ type: 'answered', asked: trace, answer: answer(trace) });
    expect(needed(store.state)).toBeNull();
    store.dispatch({ type: 'layer', value: 3 });
    expect(needed(store.state)).toMatchObject({ fresh: false, layers: [], trace: 3 });
    // A layer the model lacks is its last: the trace asked is the one shown.
    store.dispatch({ type: 'layer', value: 9 });
    expect([shownLayer(store.state), needed(store.state).trace]).toEqual([3, 3]);
  });

  test('a letter typed and deleted while a run was in flight: the old result stands and the page is ready again', () => {
    const store = page({ sentence: 'The cat sat' });
    const first = send(store);
    store.dispatch({ type: 'answered', asked: first, answer: answer(first) });
    store.dispatch({ type: 'sentence', text: 'The cat sat.' });
    const typed = send(store);
    store.dispatch({ type: 'sentence', text: 'The cat sat' }); // deleted while it runs
    expect(needed(store.state)).toBeNull(); // the result on screen is for these inputs
    expect(pageStatus(store.state).phase).toBe('busy'); // until the run in flight settles
    store.dispatch({ type: 'answered', asked: typed, answer: answer(typed) });
    expect(store.state.result.run.key).toBe(first.key); // the answer for "The cat sat." was dropped
    expect(store.state.result.run.tokens).toEqual(['The', 'cat', 'sat']);
    expect(needed(store.state)).toBeNull();
    expect(pageStatus(store.state)).toEqual({ phase: 'ready', text: '3 tokens, computed in 5.0 ms.' });
  });

  test('an answer for older inputs is dropped, and the newest inputs are what is asked next', () => {
    const store = page({ sentence: 'a' });
    const first = send(store);
    store.dispatch({ type: 'sentence', text: 'a b' });
    store.dispatch({ type: 'sentence', text: 'a b c' });
    store.dispatch({ type: 'answered', asked: first, answer: answer(first) });
    expect(store.state.result.run).toBeNull();
    expect(needed(store.state)).toMatchObject({ text: 'a b c', fresh: true });
  });

  test('inputs that were stopped or failed are not asked again until the reader types', () => {
    const store = page({ sentence: 'aaaa!' });
    const asked = send(store);
    store.dispatch({ type: 'stopped', asked, reason: 'time', ms: 1000, limit: 1000 });
    expect(needed(store.state)).toBeNull();
    expect(pageStatus(store.state)).toMatchObject({ phase: 'error', text: expect.stringMatching(/^Stopped after 1\.0 s: tokenizing this text took too long/) });
    store.dispatch({ type: 'view', value: 'head' }); // another view is no reason to try again
    expect(needed(store.state)).toBeNull();
    store.dispatch({ type: 'sentence', text: 'aaaa!' }); // typing the same text again is
    expect(needed(store.state)).toMatchObject({ text: 'aaaa!' });
    store.dispatch({ type: 'stopped', asked: send(store), reason: 'time', ms: 1000, limit: 1000 });
    store.dispatch({ type: 'sentence', text: 'aaaa' });
    const next = send(store);
    expect(next.text).toBe('aaaa');
    store.dispatch({ type: 'answered', asked: next, answer: { type: 'error', id: 1, message: 'no' } });
    expect(needed(store.state)).toBeNull();
    expect(pageStatus(store.state)).toEqual({ phase: 'error', text: 'That sentence could not be run: no' });
    store.dispatch({ type: 'sentence', text: 'aaaa b' });
    expect(needed(store.state)).not.toBeNull();
    // Once other inputs have run, the ones that stopped may be typed and run again.
    send(store);
    store.dispatch({ type: 'sentence', text: 'aaaa!' });
    expect(needed(store.state)).toMatchObject({ text: 'aaaa!' });
  });

  test('a cancelled run says so, and a stop for inputs since changed is not shown', () => {
    const store = page();
    const asked = send(store);
    store.dispatch({ type: 'stopped', asked, reason: 'cancel', ms: 2500, limit: 10000 });
    expect(pageStatus(store.state)).toMatchObject({ phase: 'cancelled', text: expect.stringMatching(/^Cancelled after 2\.5 s/) });
    const other = page();
    const old = send(other);
    other.dispatch({ type: 'sentence', text: 'Another one.' });
    other.dispatch({ type: 'stopped', asked: old, reason: 'cancel', ms: 10, limit: 10000 });
    expect(needed(other.state)).toMatchObject({ text: 'Another one.' });
  });

  test('a causal model asks for the predictions after the token pointed at, then after the focused one, then the chosen one', () => {
    const store = page({ sentence: 'Henry met William and Henry met', info: GPT });
    const first = send(store);
    store.dispatch({ type: 'answered', asked: first, answer: { ...answer(first, { layers: 2 }), causal: true, predictions: [{ position: 5, top: [] }] } });
    expect(needed(store.state)).toBeNull();
    store.dispatch({ type: 'choose-token', index: 1 });
    store.dispatch({ type: 'focus-token', index: 2 });
    store.dispatch({ type: 'point', index: 3 });
    expect(needed(store.state)).toMatchObject({ fresh: false, at: 3 });
    store.dispatch({ type: 'point', index: null });
    expect(needed(store.state)).toMatchObject({ at: 2 });
    store.dispatch({ type: 'focus-token', index: null });
    const at = needed(store.state);
    expect(at).toMatchObject({ at: 1 });
    store.dispatch({ type: 'sent', id: 2, asked: at });
    store.dispatch({ type: 'answered', asked: at, answer: { ...answer(at), causal: true, predictions: [{ position: 1, top: [] }, { position: 5, top: [] }] } });
    expect(needed(store.state)).toBeNull();
    // Pointing back at a token already predicted asks for nothing.
    store.dispatch({ type: 'point', index: 1 });
    expect(needed(store.state)).toBeNull();
  });

  test('the toy layer asks once for its trace, with its key/value heads, and again when its sizes change', () => {
    const store = page({ hash: '#mode=toy&d=16&heads=4&kv=2&seed=3' });
    const asked = needed(store.state);
    expect(asked).toMatchObject({ toy: { dModel: 16, numHeads: 4, numKeyValueHeads: 2, causal: false, seed: 3 }, trace: 0, fresh: true, layers: [] });
    store.dispatch({ type: 'sent', id: 1, asked });
    store.dispatch({ type: 'answered', asked, answer: answer(asked) });
    expect(needed(store.state)).toBeNull();
    store.dispatch({ type: 'toy', toy: { ...store.state.settings.toy, numKeyValueHeads: null } });
    expect(needed(store.state).toy.numKeyValueHeads).toBe(4);
  });

  test('switching heads off is new inputs; a new model is too, and its result starts afresh', () => {
    const store = page();
    const before = inputsKey(store.state);
    store.dispatch({ type: 'toggle-head', layer: 1, head: 2 });
    expect(inputsKey(store.state)).not.toBe(before);
    expect(needed(store.state)).toMatchObject({ ablate: [{ layer: 1, head: 2 }], ablation: 'zero' });
    const asked = send(store);
    store.dispatch({ type: 'answered', asked, answer: answer(asked) });
    store.dispatch({ type: 'load-started', loadId: 1, choice: { kind: 'hub', id: 'gpt2' }, started: 0 });
    store.dispatch({ type: 'loaded', loadId: 1, choice: { kind: 'hub', id: 'gpt2' }, info: GPT, ms: 10 });
    expect(store.state.result.run).toBeNull();
    expect(needed(store.state)).toMatchObject({ fresh: true });
  });
});

describe('the model asked for and the model on screen', () => {
  test('a model picked is loaded once; a failed load puts the one on screen back in the settings, and so in the link', () => {
    const store = page();
    expect(modelToLoad(store.state)).toBeNull();
    const gpt2 = { kind: 'hub', id: 'gpt2' };
    store.dispatch({ type: 'toggle-head', layer: 0, head: 0 });
    store.dispatch({ type: 'pick-model', choice: gpt2 });
    expect(store.state.settings.ablate).toEqual([]); // a model picked starts with every head on
    expect(modelToLoad(store.state)).toBe(gpt2);
    store.dispatch({ type: 'load-started', loadId: 1, choice: gpt2, started: 0 });
    expect(modelToLoad(store.state)).toBeNull();
    expect(readUrlState(urlHash(linkState(store.state))).model).toEqual(gpt2); // the link names the model loading
    store.dispatch({ type: 'load-failed', loadId: 1, aborted: false, message: 'HTTP 404.' });
    expect(store.state.settings.model).toEqual({ kind: 'builtin', id: 'default' });
    expect(modelToLoad(store.state)).toBeNull();
    expect(store.state.session.loadMessage).toBe('Could not load gpt2: HTTP 404. The built-in BERT is still loaded.');
    expect(readUrlState(urlHash(linkState(store.state))).model).toBeUndefined();
  });

  test('a link to another model keeps its heads switched off until that model is ready, then drops the ones it lacks', () => {
    const store = page({ hash: '#model=gpt2&ablate=3.1,9.9' });
    const gpt2 = { kind: 'hub', id: 'gpt2' };
    expect(store.state.settings.ablate).toEqual([{ layer: 2, head: 0 }, { layer: 8, head: 8 }]); // the built-in model on screen does not cut them
    store.dispatch({ type: 'load-started', loadId: 1, choice: gpt2, started: 0 });
    store.dispatch({ type: 'loaded', loadId: 1, choice: gpt2, info: { ...GPT, numLayers: 12, numHeads: 4 }, ms: 5 });
    expect(store.state.settings.ablate).toEqual([{ layer: 2, head: 0 }]);
  });

  test('a revision of a Hub model is another model to load, named in sentences and kept in the link; main is left out', () => {
    const store = page({ hash: '#model=EleutherAI/pythia-70m&revision=step1000' });
    const step1000 = { kind: 'hub', id: 'EleutherAI/pythia-70m', revision: 'step1000' };
    expect(store.state.settings.model).toEqual(step1000);
    expect(modelToLoad(store.state)).toEqual(step1000);
    store.dispatch({ type: 'load-started', loadId: 1, choice: step1000, started: 0 });
    store.dispatch({ type: 'loaded', loadId: 1, choice: step1000, info: GPT, ms: 5 });
    expect(new URLSearchParams(urlHash(linkState(store.state)).slice(1)).get('revision')).toBe('step1000');
    store.dispatch({ type: 'pick-model', choice: { kind: 'hub', id: 'EleutherAI/pythia-70m', revision: 'step143000' } });
    expect(modelToLoad(store.state)).toEqual({ kind: 'hub', id: 'EleutherAI/pythia-70m', revision: 'step143000' });
    store.dispatch({ type: 'load-started', loadId: 2, choice: store.state.settings.model, started: 0 });
    store.dispatch({ type: 'load-failed', loadId: 2, aborted: false, message: 'HTTP 404.' });
    expect(store.state.session.loadMessage)
      .toBe('Could not load EleutherAI/pythia-70m at revision step143000: HTTP 404. EleutherAI/pythia-70m at revision step1000 is still loaded.');
    expect(readUrlState('#model=gpt2&revision=main').model).toEqual({ kind: 'hub', id: 'gpt2' });
    expect(urlHash({ ...linkState(store.state), revision: undefined })).not.toContain('revision');
    for (const bad of ['..', 'a/b', '', 'x'.repeat(97), 'step 1']) {
      expect(readUrlState(`#${new URLSearchParams({ model: 'gpt2', revision: bad })}`).model).toEqual({ kind: 'hub', id: 'gpt2' });
    }
  });

  test('a hash naming another model and no heads switches every head back on; one naming the same model keeps them', () => {
    const store = page({ hash: '#ablate=1.1' });
    store.dispatch({ type: 'url', url: readUrlState('#model=default&view=head') });
    expect(store.state.settings.ablate).toEqual([{ layer: 0, head: 0 }]);
    store.dispatch({ type: 'url', url: readUrlState('#model=causal') });
    expect(store.state.settings.ablate).toEqual([]);
  });
});

describe('settings', () => {
  test('the toy layer keeps to the sizes the page offers', () => {
    const before = { dModel: 8, numHeads: 2, numKeyValueHeads: null, causal: false, seed: 1 };
    expect(fitToy({ ...before, dModel: 12 }, before)).toBe(before); // not offered: unchanged
    expect(fitToy({ ...before, dModel: 4, numHeads: 8 }, before)).toMatchObject({ dModel: 4, numHeads: 1 });
    expect(fitToy({ ...before, numHeads: 8, numKeyValueHeads: 2 }, before)).toMatchObject({ numHeads: 8, numKeyValueHeads: 2 });
    expect(fitToy({ ...before, numHeads: 8, numKeyValueHeads: 3 }, before)).toMatchObject({ numKeyValueHeads: null });
    expect(fitToy({ ...before, numHeads: 4, numKeyValueHeads: 4 }, before)).toMatchObject({ numKeyValueHeads: null });
  });

  test('a head or layer the model lacks shows its last, and the link says what is shown', () => {
    const store = page({ hash: '#view=head&layer=9&head=7' });
    expect([shownLayer(store.state), shownHead(store.state)]).toEqual([3, 3]);
    expect(linkState(store.state)).toMatchObject({ layer: 3, head: 3 });
    store.dispatch({ type: 'view', value: 'grid' });
    store.dispatch({ type: 'head', value: 'all' });
    expect(shownHead(store.state)).toBe(0); // every head is for the lines view only
  });

  test('a link without kv reads as one key/value head per head, and writes none back', () => {
    const store = page({ hash: '#mode=toy&heads=4' });
    expect(store.state.settings.toy.numKeyValueHeads).toBeNull();
    expect(urlHash(linkState(store.state))).not.toContain('kv=');
    store.dispatch({ type: 'toy', toy: { ...store.state.settings.toy, numKeyValueHeads: 1 } });
    expect(urlHash(linkState(store.state))).toContain('kv=1');
  });

  test('the token pointed at is forgotten when new tokens come; the one chosen stays if the text still has it', () => {
    const store = page({ sentence: 'a b c d' });
    store.dispatch({ type: 'choose-token', index: 1 });
    store.dispatch({ type: 'point', index: 2 });
    store.dispatch({ type: 'sentence', text: 'a b c' });
    const asked = send(store);
    store.dispatch({ type: 'answered', asked, answer: answer(asked) });
    expect(store.state.ui).toMatchObject({ at: 1, pointed: null });
    store.dispatch({ type: 'sentence', text: 'a b' });
    const again = send(store);
    store.dispatch({ type: 'answered', asked: again, answer: answer(again) });
    expect(store.state.ui.at).toBeNull(); // token 2 is the last now: nothing comes after it to show
  });

  test('a run for the same inputs adds to the result and keeps its token arrays', () => {
    const asked = { key: 'k', text: 'a b', toy: null, fresh: true, layers: [], overview: false, summary: null, trace: null };
    const first = merged(null, answer(asked), asked);
    const more = merged(first, { ...answer({ ...asked, fresh: false, trace: 2 }) }, asked);
    expect(more.tokens).toBe(first.tokens);
    expect(more.layers[2]).toMatchObject({ numHeads: 4 });
    expect(more.traced).toBe(2);
    expect(more.summary).toBe(first.summary);
  });

  test('a run takes the grouped heads and windows from the model\'s info, sent once; the toy layer has neither', () => {
    const info = { kvHeads: [0, 0, 1, 1], windows: [512, null] };
    const asked = { key: 'k', text: 'a b', toy: null, fresh: true, layers: [], overview: false, summary: null, trace: null };
    expect(merged(null, answer(asked), asked, info)).toMatchObject(info);
    const toy = { ...asked, toy: { causal: false } };
    expect(merged(null, answer(toy), toy, info)).toMatchObject({ kvHeads: null, windows: null });
  });
});

describe('writing: the run on screen grows a token at a time', () => {
  const written = (n, id) => ({ index: 0, position: n, id, token: 'next', probability: 0.5, alternatives: [{ token: 'next', id, probability: 0.5 }], elapsedMs: 4 });
  /** A causal page whose sentence's run came with both layers, each head's weights (i, j) = 10·i + j + 1. */
  function written0() {
    const store = page({ sentence: 'Henry met William and Henry met', info: GPT });
    const asked = send(store);
    const base = answer(asked, { layers: 2 });
    const n = base.tokens.length;
    for (const layer of base.layers) layer.weights = [Float32Array.from({ length: n * n }, (_, k) => 10 * Math.floor(k / n) + (k % n) + 1)];
    store.dispatch({ type: 'answered', asked, answer: { ...base, causal: true, predictions: [{ position: n - 1, top: [] }] } });
    return { store, n };
  }

  test('Write starts from the run on screen; each step adds its token and its row in every layer held; the end asks for the rest', () => {
    const { store, n } = written0();
    expect(canWrite(store.state)).toBe(true);
    store.dispatch({ type: 'write-start', writeId: 1, started: 0 });
    expect(canWrite(store.state)).toBe(false);
    expect(needed(store.state)).toBeNull(); // each step brings its own rows
    expect(pageStatus(store.state)).toEqual({ phase: 'writing', text: 'Writing: running the prompt…' });
    const row = Float32Array.from({ length: n + 1 }, (_, j) => 100 + j);
    store.dispatch({ type: 'write-step', writeId: 1, step: written(n, 7), prefillMs: 3, rows: [0, 1].map((layer) => ({ layer, weights: [row] })) });
    store.dispatch({ type: 'write-step', writeId: 2, step: written(n + 1, 8), prefillMs: 3, rows: [] }); // another writing's: dropped
    const run = store.state.result.run;
    expect([run.key, run.tokens.length, run.promptLength, store.state.settings.written]).toEqual([inputsKey(store.state), n + 1, n, [7]]);
    const grown = run.layers[1].weights[0];
    expect(grown.length).toBe((n + 1) ** 2);
    expect(grown[n + 1 + 2]).toBe(10 + 2 + 1); // row 1, key 2: the prompt's
    expect(grown[n]).toBe(0); // row 0, the new key: masked
    expect(Array.from(grown.subarray(n * (n + 1)))).toEqual(Array.from(row));
    expect(drawable(store.state)).toBe(true);
    expect(run.nextTokens.get(n - 1).top[0].id).toBe(7); // what it expected after the last prompt token
    expect(pageStatus(store.state).text).toBe('Writing… 1 of 32 tokens: prefill 3.0 ms, 4.0 ms per token (250.0 tokens/s).');
    store.dispatch({ type: 'write-done', writeId: 1, reason: 'maxNewTokens', prefillMs: 3, message: '' });
    // The written text lacks its roles and the predictions after its last token: asked once, fresh, from the writing's result.
    expect(needed(store.state)).toMatchObject({ fresh: true, written: [7], steps: false });
    expect(pageStatus(store.state).text).toBe('Wrote 1 token (as many as asked): prefill 3.0 ms, 4.0 ms per token (250.0 tokens/s).');
    expect(urlHash(linkState(store.state))).toContain('out=7');
  });

  test('typing, other heads or another model stop the writing; typing drops what was written, heads keep it', () => {
    const { store, n } = written0();
    store.dispatch({ type: 'write-start', writeId: 1, started: 0 });
    store.dispatch({ type: 'write-step', writeId: 1, step: written(n, 7), prefillMs: 3, rows: [] });
    store.dispatch({ type: 'toggle-head', layer: 0, head: 0 });
    expect([store.state.session.writing, store.state.settings.written]).toEqual([null, [7]]);
    store.dispatch({ type: 'sentence', text: 'Henry met' });
    expect(store.state.settings.written).toEqual([]);
  });

  test('a link with the written ids asks for them after the sentence, with their strip', () => {
    const store = page({ sentence: 'x', hash: '#sentence=Henry+met&model=causal&out=7,8&new=2&temp=0.7&wseed=5', info: GPT });
    expect(store.state.settings.write).toMatchObject({ maxNewTokens: 2, temperature: 0.7, seed: 5 });
    const asked = needed(store.state);
    expect(asked).toMatchObject({ written: [7, 8], steps: true, chat: false, fresh: true });
    store.dispatch({ type: 'sent', id: 1, asked });
    const steps = [written(2, 7), written(3, 8)].map(({ elapsedMs, ...s }, i) => ({ ...s, index: i, position: 2 + i }));
    store.dispatch({ type: 'answered', asked, answer: { ...answer({ ...asked, text: 'Henry met a b' }, { layers: 2 }), causal: true, predictions: [{ position: 3, top: [] }], steps } });
    expect(store.state.result.run).toMatchObject({ promptLength: 2, steps });
    expect(needed(store.state)).toBeNull();
  });
});

test('Write\'s options and the written ids go into the link and come back; values out of range are ignored', () => {
  const write = { maxNewTokens: 64, temperature: 0.8, topK: 40, topP: 0.95, seed: 7 };
  const hash = urlHash({ ...linkState(page().state), write, written: [464, 0, 12], chat: true });
  expect(readUrlState(hash)).toMatchObject({ write, written: [464, 0, 12], chat: true });
  expect(urlHash(linkState(page().state))).not.toMatch(/new=|temp=|out=|chat=/); // the defaults are left out
  const store = page({ hash: '#new=300&temp=-1&topp=0&topk=2.5&wseed=1&out=1,,2' });
  expect(store.state.settings.write).toEqual({ maxNewTokens: 32, temperature: 0, topK: 0, topP: 1, seed: 1 });
  expect(store.state.settings.written).toEqual([]);
  // A sentence too long for a link cannot keep what was written after it.
  expect(urlHash({ ...linkState(page().state), sentence: 'a'.repeat(3000), written: [1] })).not.toContain('out=');
});

test('a long paste gets a short inputs key, and a letter changed anywhere in it another: the key holds the text\'s length and hashes, not the text', () => {
  const text = 'The cat sat on the mat. '.repeat(2000); // a 10 MB one took 0.1 s a key when the key held the text
  const store = page({ sentence: text });
  const key = inputsKey(store.state);
  expect(key.length).toBeLessThan(100);
  expect(inputsKey(page({ sentence: `${text.slice(0, 2e4)}X${text.slice(2e4 + 1)}` }).state)).not.toBe(key);
  expect(inputsKey(page({ sentence: text.slice(1) }).state)).not.toBe(key);
  expect(needed(store.state).text).toBe(text); // the worker still gets the whole text
});
