// The Embed dialog and the download buttons: snippets and files of what is on screen (share.js
// makes them from the state; this wires the buttons).
import { linkedModel, modelRevision } from '../state/model-choice.js';
import { allLayersShown, shownAblated, shownHead, shownLayer, shownStack } from '../state/settings.js';
import { shownRoles } from './panels.js';
import { download, downloadWhy, embedSnippets } from '../share.js';
import { shownPatch } from '../state/why.js';
import { viewData } from '../../src/views/view-data.js';
import { linkHref } from '../url-sync.js';

export function wireShareButtons(store) {
  const $ = (id) => document.getElementById(id);
  const dialog = $('embed-dialog');
  $('embed').addEventListener('click', () => {
    const state = store.state;
    const { sentence, view, mode, written, chat } = state.settings;
    const { iframe, element, notes } = embedSnippets({
      sentence, view, layer: shownLayer(state), head: shownHead(state), toy: mode === 'toy', model: linkedModel(state.session.model),
      revision: modelRevision(state.session.model), written: written.length, chat, href: linkHref(state),
      stack: state.session.info?.encoderDecoder ? shownStack(state) : null,
    });
    $('embed-iframe').value = iframe;
    $('embed-element').value = element;
    for (const kind of ['iframe', 'element']) {
      $(`embed-${kind}-note`).textContent = notes[kind];
      $(`embed-${kind}-note`).hidden = notes[kind] === '';
    }
    dialog.showModal();
  });
  for (const button of dialog.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const field = $(button.dataset.copy);
      field.select();
      const done = await navigator.clipboard?.writeText(field.value).then(() => true, () => false);
      button.textContent = done ? 'Copied' : 'Selected: press Ctrl+C';
    });
  }
  const note = (text) => store.dispatch({ type: 'note', text });
  for (const kind of ['png', 'svg', 'json', 'csv']) {
    $(`export-${kind}`).addEventListener('click', () => {
      const state = store.state;
      const run = state.result.run;
      if (!run) return note('Nothing to download yet: type a sentence first.');
      const model = state.settings.mode === 'model';
      // The Why? view's figure and numbers; its JSON is the attention, as in every view.
      if (state.settings.view === 'why' && kind !== 'json') {
        return downloadWhy(kind, viewData('why', run, 0, { patch: shownPatch(state) })).catch((error) => note(`The download failed: ${error.message}`));
      }
      return download(kind, run, {
        view: state.settings.view, layer: allLayersShown(state) ? 'all' : shownLayer(state), head: shownHead(state),
        numLayers: model ? run.numLayers : 1,
        roles: model ? shownRoles(state)?.heads ?? null : null, ablated: model ? shownAblated(state) : [],
      }).catch((error) => note(`The download failed: ${error.message}`));
    });
  }
}
