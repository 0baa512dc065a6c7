// The URL's hash and the settings, both ways, through url-state.js's codec. The address bar always
// links to what is on screen (a writing once it ends): after each change the hash is rewritten
// with replaceState, which fires no hashchange, so the page never reads back its own writes. A hash changed by a link, by
// hand or by Back is applied to the settings as a new state.
import { linkedModel, modelRevision } from './state/model-choice.js';
import { shownHead, shownStack, stackLayers } from './state/settings.js';
import { readUrlState, urlHash } from './url-state.js';

/** What the URL holds for `state`: the settings as shown (a layer the model lacks is its last). */
export function linkState(state) {
  const { sentence, mode, view, layer, toy, model, ablate, ablation, write, written, chat, why } = state.settings;
  const info = state.session.info;
  const layers = info ? stackLayers(info, shownStack(state)) : undefined;
  const shown = layers === undefined ? layer : Math.min(layer, layers - 1); // the toy's one layer leaves the model's choice be
  return {
    sentence, mode, stack: info?.encoderDecoder ? state.settings.stack : 'encoder', view, toy, ablate, ablation, write, written, chat, why,
    model: linkedModel(model), revision: modelRevision(model),
    layer: state.settings.allLayers && view === 'grid' ? 'all' : shown,
    head: shownHead(state),
  };
}

// Browsers limit how often a page may rewrite its URL: Chromium ignores more than 200 rewrites in
// 10 s, and Safari has thrown past 100 in 30 s. A writing goes in once it ends; typing (each
// keystroke is a new sentence) at most every TYPING_GAP ms, the last state always. Any other
// change is written at once. What the page hands out as its link (the embed dialog's iframe) is
// linkHref(), never the address bar, which may be those few ms behind.
const TYPING_GAP = 300;

/** The page's address for `state`: what the address bar says once syncUrl() has written it. */
export function linkHref(state) {
  return new URL(urlHash(linkState(state)), location.href).href;
}

/** Keeps the address bar and `store`'s settings in step. */
export function syncUrl(store) {
  // applied: the hash the settings hold, as location.hash spells it (the page's last write, or the
  // last one read). A hash that differs was set by a link, by hand or by Back, and its hashchange
  // is still to come: a write due meanwhile (a typing gap's timer) would replace that entry's new
  // hash with the state it left, and the hashchange would then read the old state back.
  let last = -Infinity, timer = 0, written = '', applied = location.hash;
  const besidesSentence = (state) => urlHash({ ...linkState(state), sentence: '' });
  const write = () => {
    clearTimeout(timer);
    timer = 0;
    const state = store.state;
    if (state.session.writing || location.hash !== applied) return;
    last = performance.now();
    written = besidesSentence(state);
    const hash = urlHash(linkState(state));
    try {
      if (hash !== location.hash) history.replaceState(null, '', hash);
    } catch {
      // over the browser's limit: the next change writes the URL again
    }
    applied = location.hash;
  };
  store.subscribe((state) => {
    const wait = last + TYPING_GAP - performance.now();
    if (wait <= 0 || besidesSentence(state) !== written) write();
    else timer ||= setTimeout(write, wait);
  });
  window.addEventListener('hashchange', () => {
    applied = location.hash;
    store.dispatch({ type: 'url', url: readUrlState(location.hash) });
  });
}
