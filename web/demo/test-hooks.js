// What the end-to-end tests wait on, in one place: attributes on <body> and #model-status that
// follow the state. body[data-state] is the page's phase (state/status.js), body[data-model] how
// the last model load went (loading, ready, error, cancelled), body[data-threads] the engine's
// thread count, and #model-status[data-load-ms] how long the last load took. Subscribed last, so
// a phase of 'ready' is set after the view and the panels are drawn.
import { pageStatus } from './state/status.js';

export function testHooks() {
  const body = document.body.dataset;
  const status = document.getElementById('model-status').dataset;
  return {
    render(state) {
      const { info, loadPhase, loadMs } = state.session;
      set(body, 'state', pageStatus(state).phase);
      set(body, 'model', loadPhase);
      set(body, 'threads', info ? String(info.threads) : null);
      set(status, 'loadMs', loadMs === null ? null : String(loadMs));
    },
  };
}

function set(dataset, name, value) {
  if (value === null) return; // a hook appears once it has a value, and keeps its last one
  if (dataset[name] !== value) dataset[name] = value;
}
