// The one view on screen, in #view: created when the reader picks it (the one before is
// destroyed) and updated with viewData() when the result, the choices it shows or the width
// change. It draws only a result that fits the settings, and keeps the last one on screen while
// the next is computed, so typing never blanks the page. While the model writes, the view grows
// as often as it can draw without taking most of the time the model writes in.
import { VIEWS } from '../../src/views/views.js';
import { viewData } from '../../src/views/view-data.js';
import { drawable, predictsNext } from '../state/needed.js';
import { allLayersShown, shownAblated, shownHead, shownLayer } from '../state/settings.js';
import { cleared } from '../state/status.js';
import { shownPatch } from '../state/why.js';
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

  let waiting = 0; // the timer a writing's next token waits for
  let drawnAt = 0, cost = 0; // when the view was last updated, and how long that took
  function render(state) {
    if (cleared(state)) return clear();
    if (!drawable(state)) return undefined; // the next answer draws
    const run = state.result.run;
    const { view } = state.settings;
    const model = state.settings.mode === 'model';
    // The written token chosen in the strip marks, in every head, the row of the query that chose
    // it; while the model writes, the newest query's row over the keys cached so far is marked.
    // (An encoder–decoder's encoder rows are the source's: no step has its row there.)
    const stepRows = model && predictsNext(state);
    const step = stepRows && state.ui.step !== null ? run.steps?.[state.ui.step] ?? null : null;
    // A head chosen in the Why? view marks the row of the position it explained.
    const row = step ? step.position - 1 : state.session.writing && stepRows ? run.tokens.length - 1 : state.ui.row;
    const why = view === 'why';
    const inputs = [run, view, allLayersShown(state) ? 'all' : shownLayer(state), shownHead(state), model,
      model ? shownRoles(state)?.heads ?? null : null, model ? shownAblated(state) : null, width, row,
      why ? shownPatch(state) : null, why ? state.session.patching : null];
    if (current.name === view && current.drawn?.every((value, i) => value === inputs[i])) return undefined;
    // While the model writes, an update waits for the last one to have painted every head, and for
    // twice the time it took: a view that is quick to draw grows a row at a time, one that is not
    // leaves the cores the model writes with most of their time.
    const wait = state.session.writing && current.name === view
      ? Math.max(drawnAt + 2 * cost - performance.now(), root.firstElementChild?.getAttribute('aria-busy') === 'true' ? 16 : 0) : 0;
    if (wait > 0) {
      waiting ||= setTimeout(() => {
        waiting = 0;
        render(store.state);
      }, wait);
      return undefined;
    }
    drawnAt = performance.now();
    const [, , layer, head, , roles, ablated, , , patch, patching] = inputs;
    show(view).update(viewData(view, run, layer, { head, toy: !model, roles, ablated: ablated ?? [], row, patch, patching }));
    cost = performance.now() - drawnAt;
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
    // A head chosen in the Why? view opens its attention with the explained position's row marked.
    const onWhyHead = (layer, head) => dispatch({ type: 'select-head', head, layer, row: store.state.result.run?.why?.position ?? null });
    const callbacks = name === 'grid' ? { onSelectHead, onToggleHead } : name === 'why' ? { onSelectHead: onWhyHead } : {};
    Object.assign(current, { name, view: VIEWS[name](host, callbacks), drawn: null });
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
