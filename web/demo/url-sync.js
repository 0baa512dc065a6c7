// The URL's hash and the settings, both ways, through url-state.js's codec. The address bar always
// links to what is on screen (a writing once it ends): after each change the hash is rewritten
// with replaceState, which fires no hashchange, so the page never reads back its own writes. A hash changed by a link, by
// hand or by Back is applied to the settings as a new state.
import { linkedModel, modelRevision } from './state/model-choice.js';
import { shownHead } from './state/settings.js';
import { readUrlState, urlHash } from './url-state.js';

/** What the URL holds for `state`: the settings as shown (a layer the model lacks is its last). */
export function linkState(state) {
  const { sentence, mode, view, layer, toy, model, ablate, ablation, write, written, chat } = state.settings;
  const layers = state.session.info?.numLayers;
  const shown = layers === undefined ? layer : Math.min(layer, layers - 1); // the toy's one layer leaves the model's choice be
  return {
    sentence, mode, view, toy, ablate, ablation, write, written, chat, model: linkedModel(model), revision: modelRevision(model),
    layer: state.settings.allLayers && view === 'grid' ? 'all' : shown,
    head: shownHead(state),
  };
}

/** Keeps the address bar and `store`'s settings in step. */
export function syncUrl(store) {
  store.subscribe((state) => {
    // Chromium throttles a page that rewrites its URL tens of times a second: a writing goes in once it ends.
    if (state.session.writing) return;
    const hash = urlHash(linkState(state));
    if (hash !== location.hash) history.replaceState(null, '', hash);
  });
  window.addEventListener('hashchange', () => store.dispatch({ type: 'url', url: readUrlState(location.hash) }));
}
