// The panels under the view, drawn from the state: the model's predictions, what each head does
// (roles-panel.js) and which heads are switched off (ablation-panel.js). They dispatch the
// reader's clicks, and ask the session for the probe-set measure.
import { modelName } from '../state/model-choice.js';
import { shownAblated, shownStack } from '../state/settings.js';
import { CROSS_ROLES } from '../../src/analysis/cross-roles.js';
import { inputsKey, needed, predictedAt, predictsNext } from '../state/needed.js';
import { cleared } from '../state/status.js';
import { modelKey } from '../session.js';
import { saveFile } from '../share.js';
import { createAblationPanel } from './ablation-panel.js';
import { renderPredictions } from './predictions.js';
import { rolesCsv, rolesJson } from './role-files.js';
import { createRolesPanel } from './roles-panel.js';

/**
 * The head roles on screen: the probe set's for this model (an encoder–decoder's encoder only: the
 * probe set is sentences, with no target), or the live ones of the run shown, a cross-attention's
 * with its own roles (cross-roles.js) and the alignment they read.
 */
export function shownRoles(state) {
  if (state.ui.rolesMode === 'probes') return shownStack(state) === 'encoder' ? state.result.measured.get(modelKey(state)) ?? null : null;
  const run = state.result.run;
  if (!run?.roles) return null;
  return run.alignment ? { heads: run.roles, meanings: CROSS_ROLES, alignment: run.alignment } : { heads: run.roles };
}

/** What the predictions panel draws: a masked model's lists at its masks, a causal model's after the token shown and the last one. */
function predictionsOf(state) {
  const run = state.result.run;
  if (!predictsNext(state)) return run;
  const n = run.tokens.length;
  const at = predictedAt(state);
  const positions = at !== null && at < n - 1 ? [at, n - 1] : [n - 1];
  const predictions = positions.filter((p) => run.nextTokens.has(p)).map((position) => ({ position, ...run.nextTokens.get(position) }));
  return { ...run, predictions };
}

export function createPanels(store, session) {
  const { dispatch } = store;
  const $ = (id) => document.getElementById(id);
  const onToggleHead = (layer, head, stack) => dispatch({ type: 'toggle-head', layer, head, stack });
  const roles = createRolesPanel($('roles'), {
    onMeasure: () => session.measure(), onCancel: () => session.cancelMeasure(), onToggleHead, onDownload: downloadRoles,
  });
  const ablation = createAblationPanel($('ablation'), { onToggleHead, onReset: () => dispatch({ type: 'ablate', heads: [] }) });
  const drawn = { predictions: [], roles: [], ablation: [], measuring: null };

  function render(state) {
    renderPredictionsPanel(state);
    renderRoles(state);
  }

  function renderPredictionsPanel(state) {
    const { info } = state.session;
    const run = state.result.run;
    const model = state.settings.mode === 'model';
    if (cleared(state) || !info) return once('predictions', [null], () => renderPredictions($('predictions'), info ?? {}, null));
    // The predictions on screen stay until the run for the current inputs holds all it shows.
    if (!run || run.key !== inputsKey(state) || needed(state) !== null) return undefined;
    const next = predictsNext(state);
    const at = next ? predictedAt(state) : null;
    return once('predictions', [info, run, model, at, next], () => renderPredictions($('predictions'), info, model ? predictionsOf(state) : null, next));
  }

  function renderRoles(state) {
    const { info, measuring, measureFailed } = state.session;
    const model = state.settings.mode === 'model' && Boolean(info);
    $('roles').hidden = $('ablation').hidden = !model;
    if (!model) return;
    const shown = measuring?.key === modelKey(state) ? measuring : null;
    const heads = shownRoles(state);
    const { ablate } = state.settings;
    once('roles', [heads?.heads, state.ui.rolesMode, shown, measureFailed, ablate], () => roles.update({
      ...heads, mode: state.ui.rolesMode, heads: heads?.heads ?? null, measuring: shown, failed: measureFailed,
      ablated: new Set(shownAblated(state).map(({ layer, head }) => `${layer}.${head}`)),
    }));
    const run = state.result.run;
    once('ablation', [ablate, run], () => ablation.update({ ablated: ablate, changes: run?.ablated?.length ? run.changes ?? null : null }));
    // Cancel and Measure hide or stay when a measure ends; the keyboard's focus goes back to the mode it chose.
    if (drawn.measuring && !measuring && ['roles-cancel', 'roles-start'].includes(document.activeElement?.id)) {
      document.querySelector('input[name="rolesMode"]:checked').focus();
    }
    drawn.measuring = measuring;
  }

  /** Calls `draw` unless `inputs` are the ones `name` was last drawn with. */
  function once(name, inputs, draw) {
    if (drawn[name].length === inputs.length && inputs.every((value, i) => value === drawn[name][i])) return;
    drawn[name] = inputs;
    draw();
  }

  /** Saves the role table on screen as CSV or JSON. */
  function downloadRoles(kind) {
    const state = store.state;
    const shown = shownRoles(state);
    if (!shown) return dispatch({ type: 'note', text: 'No head roles to download yet: type a sentence, or measure over the probe set.' });
    const probes = state.ui.rolesMode === 'probes';
    const columns = Object.keys(shown.heads[0].scores);
    const meta = {
      model: modelName(state.session.model), measured: probes ? 'over the probe set' : 'on one sentence',
      ...(probes ? { relations: shown.relations, sentences: shown.sentences, runs: shown.runs } : { sentence: state.settings.sentence }),
    };
    const text = kind === 'csv' ? rolesCsv(shown.heads, columns) : rolesJson(shown.heads, meta);
    return saveFile(new Blob([text], { type: kind === 'csv' ? 'text/csv' : 'application/json' }), `multihead-head-roles.${kind}`);
  }

  return { render };
}
