// Registers <multihead-view> and runs the model through the API, both by the package's names;
// publishes window.__result (the API's tokens and layer 2 head 2 weights, what the element drew,
// and the engine's threads) and window.__done, or window.__error.
import 'multihead/element';
import { loadEngine } from 'multihead';

const view = document.getElementById('view');

try {
  // The element's model attribute, when the app hosts the model itself (the esbuild app does).
  const engine = await loadEngine();
  const model = await engine.loadModel(view.getAttribute('model') ?? undefined);
  const r = model.run('The cat sat on the mat.');
  if (view.state !== 'ready') {
    await new Promise((resolve, reject) => {
      view.addEventListener('render', resolve, { once: true });
      view.addEventListener('error', (event) => reject(new Error(event.detail.message)), { once: true });
    });
  }
  window.__result = {
    tokens: r.tokens,
    weights: Array.from(r.attention(1, 1)),
    element: { tokens: view.tokens, title: view.shadowRoot.querySelector('.mh-head-title').textContent },
    threads: { got: engine.threads, error: engine.threadsError?.message ?? null, cores: navigator.hardwareConcurrency },
  };
  window.__done = true;
} catch (error) {
  window.__error = String(error?.message ?? error);
}
