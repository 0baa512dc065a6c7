// The one view on screen, in #view: created when the reader picks it (the one before is
// destroyed) and updated with viewData() when the result, the choices it shows or the width
// change. It draws only a result that fits the settings, and keeps the last one on screen while
// the next is computed, so typing never blanks the page. While the model writes, a token that
// comes while the view is still painting the one before waits for it, so every head is drawn.
import { VIEWS } from '../../src/views/views.js';
import { viewData } from '../../src/views/view-data.js';
import { drawable } from '../state/needed.js';
import { allLayersShown, shownHead, shownLayer } from '../state/settings.js';
import { cleared } from '../state/status.js';
import { shownRoles } from './panels.js';
import { debounce } from './debounce.js';

export function createViewHost(store) {
  const { dispatch } = store;
  const root = document.getElementById('view');
  const current = { name: null, view: null, drawn: null };
  let width = 0; // bumped by resizes, so the same data draws again at the new size
  window.addEventListener('resize', debounce(() => {
    width++;
    render(store.state);
  }, 150));

  let waiting = 0; // the frame a writing's next token waits for
  function render(state) {
    if (cleared(state)) return clear();
    if (!drawable(state)) return undefined; // the next answer draws
    const run = state.result.run;
    const { view } = state.settings;
    const model = state.settings.mode === 'model';
    // The written token chosen in the strip marks, in every head, the row of the query that chose
    // it; while the model writes, the newest query's row over the keys cached so far is marked.
    const step = model && state.ui.step !== null ? run.steps?.[state.ui.step] ?? null : null;
    const row = step ? step.position - 1 : state.session.writing && model ? run.tokens.length - 1 : null;
    const inputs = [run, view, allLayersShown(state) ? 'all' : shownLayer(state), shownHead(state), model,
      model ? shownRoles(state)?.heads ?? null : null, model ? state.settings.ablate : null, width, row];
    if (current.name === view && current.drawn?.every((value, i) => value === inputs[i])) return undefined;
    if (state.session.writing && current.name === view && root.firstElementChild?.getAttribute('aria-busy') === 'true') {
      waiting ||= requestAnimationFrame(() => {
        waiting = 0;
        render(store.state);
      });
      return undefined;
    }
    const [, , layer, head, , roles, ablated] = inputs;
    show(view).update(viewData(view, run, layer, { head, toy: !model, roles, ablated: ablated ?? [], row }));
    current.drawn = inputs;
    return undefined;
  }

  /** The view called `name`, created on first use; the previous one is destroyed. */
  function show(name) {
    if (current.name === name) return current.view;
    current.view?.destroy();
    const host = document.createElement('div');
    root.replaceChildren(host);
    const onSelectHead = (head, layer = null) => dispatch({ type: 'select-head', head, layer });
    const onToggleHead = (layer, head) => dispatch({ type: 'toggle-head', layer, head });
    Object.assign(current, { name, view: VIEWS[name](host, name === 'grid' ? { onSelectHead, onToggleHead } : {}), drawn: null });
    return current.view;
  }

  function clear() {
    if (current.name === null) return;
    current.view.destroy();
    Object.assign(current, { name: null, view: null, drawn: null });
    root.replaceChildren();
  }

  return { render };
}
