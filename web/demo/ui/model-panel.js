// Which model is on screen and which one is loading, in the header and in the model section: the
// picker (model-picker.js) hands the reader's choice to the settings, and shows the session's
// load, its progress and how it ended.
import { ModelName, modelName } from '../state/model-choice.js';
import { createModelPicker } from './model-picker.js';

// The architectures by the names their papers give them.
const KINDS = { bert: 'BERT', distilbert: 'DistilBERT', roberta: 'RoBERTa', gpt2: 'GPT-2' };

/** The model section's sentence about the model on screen. */
function describeModel(choice, info, hubUrl) {
  const kind = KINDS[info.architecture] ?? info.architecture;
  const head = !info.hasLmHead ? 'no language-model head, so no predictions'
    : info.causal ? 'causal: it predicts the next token' : `masked LM: it predicts each ${info.maskToken ?? 'mask token'}`;
  const where = choice.kind === 'hub' && hubUrl ? ` (from ${new URL(hubUrl).host}, not the Hugging Face Hub)` : '';
  return `${ModelName(choice)}${where}: ${kind}, ${info.numLayers} layers × ${info.numHeads} heads, d_model ${info.dModel}, ` +
    `up to ${info.maxTokens} tokens; ${head}.`;
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
