// Loads the default model with engine.loadModel() (no argument: the files inside the package),
// runs MODEL_SENTENCE and publishes { build, tokens, ids, attention, hidden } on window.__result.
import { loadEngine } from '/web/src/index.js';
import { MODEL_SENTENCE, runModel } from './compute.js';
import { showError } from './show.js';

const root = document.getElementById('results');
try {
  const result = await runModel(loadEngine, MODEL_SENTENCE);
  const p = document.createElement('p');
  p.textContent = `${result.build} build: ${result.tokens.join(' · ')}`;
  root.append(p);
  window.__result = result;
  window.__done = true;
} catch (error) {
  window.__error = String(error?.message ?? error);
  showError(root, window.__error);
}
