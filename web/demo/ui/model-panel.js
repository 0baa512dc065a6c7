// Which model is on screen and which one is loading, in the header and in the model section: the
// picker (model-picker.js) hands the reader's choice to the settings, and shows the session's
// load, its progress and how it ended.
import { ModelName, modelName } from '../state/model-choice.js';
import { createModelPicker } from './model-picker.js';
import { PAGE_MAX_TOKENS } from '../worker/messages.js';

/** The model's heads, with the key/value heads they share (grouped-query attention) and its sliding windows. */
function headsText({ numLayers, numHeads, numKeyValueHeads = numHeads, windows = [] }) {
  const kv = numKeyValueHeads < numHeads ? ` (sharing ${numKeyValueHeads} key/value head${numKeyValueHeads === 1 ? '' : 's'} per layer)` : '';
  const sliding = windows.filter((w) => w !== null);
  const sizes = [...new Set(sliding)].join(' or ');
  const slide = sliding.length === 0 ? '' : sliding.length === numLayers ? `, every layer sliding over ${sizes} keys`
    : `, ${sliding.length} of them sliding over ${sizes} keys and ${numLayers - sliding.length} seeing every key`;
  return `${numLayers} layers × ${numHeads} heads${kv}${slide}`;
}

/** The model section's sentence about the model on screen. */
function describeModel(choice, info, hubUrl) {
  const kind = info.architectureName;
  const head = info.encoderDecoder ? 'an encoder–decoder: its encoder reads the source, and its decoder writes the target ' +
      'token by token, reading the source through its cross-attention'
    : !info.hasLmHead ? 'no language-model head, so no predictions'
      : info.causal ? 'causal: it predicts the next token' : `masked LM: it predicts each ${info.maskToken ?? 'mask token'}`;
  const where = choice.kind === 'hub' && hubUrl ? ` (from ${new URL(hubUrl).host}, not the Hugging Face Hub)` : '';
  const tokens = info.maxTokens > PAGE_MAX_TOKENS ? `up to ${PAGE_MAX_TOKENS} tokens on this page (the model takes ${info.maxTokens})`
    : `up to ${info.maxTokens} tokens`;
  const layers = info.encoderDecoder ? `${info.numLayers} encoder and ${info.numDecoderLayers} decoder layers × ${info.numHeads} heads` : headsText(info);
  return `${ModelName(choice)}${where}: ${kind}, ${layers}, d_model ${info.dModel}, ${tokens}; ${head}.`;
}

export function createModelPanel(store, session) {
  const $ = (id) => document.getElementById(id);
  const picker = createModelPicker({ onLoad: (choice) => store.dispatch({ type: 'pick-model', choice }), onCancel: () => session.cancelLoad() });
  const drawn = { model: null, loading: undefined, progress: undefined, message: null, models: -1, phase: null, info: null };

  function render(state) {
    const { settings, session: s } = state;
    if (settings.model !== drawn.model) picker.select((drawn.model = settings.model));
    if (s.loading?.loadId !== drawn.loading || s.loading?.progress !== drawn.progress) {
      drawn.loading = s.loading?.loadId;
      drawn.progress = s.loading?.progress;
      picker.progress(s.loading ? modelName(s.loading.choice) : null, s.loading?.progress ?? null);
    }
    if (s.loadMessage !== drawn.message) picker.showMessage((drawn.message = s.loadMessage));
    // The downloaded models change when a load ends.
    if (s.models !== drawn.models || s.loadPhase !== drawn.phase) {
      Object.assign(drawn, { models: s.models, phase: s.loadPhase });
      if (s.info) picker.refreshCache();
    }
    const loading = s.loading ? `; loading ${modelName(s.loading.choice)}…` : '';
    setText($('model-name'), `${modelName(s.model)}${loading}`);
    if (s.info && s.info !== drawn.info) {
      drawn.info = s.info;
      $('model-status').textContent = describeModel(s.model, s.info, s.hubUrl);
    }
  }

  return { render };
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
