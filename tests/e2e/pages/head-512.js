// Draws head 0 of a seeded 512-token, 64-wide, 4-head attention layer in the head view, then
// publishes the weights' row sums so the test knows real numbers were drawn. Added to views.html,
// which has the import map the views need.
import { loadEngine } from '/web/src/index.js';
import { createHeadView } from '/web/src/views/head-view.js';
import { VIEWS_CSS } from '/web/src/views/styles.js';

const N = 512, D = 64;

try {
  const style = document.createElement('style');
  style.textContent = VIEWS_CSS;
  document.head.append(style);
  const engine = await loadEngine();
  const attention = engine.createAttention({ dModel: D, numHeads: 4, causal: false, seed: 5 });
  const x = Float32Array.from({ length: N * D }, (_, i) => Math.sin(i * 0.37) + Math.cos(i * 0.011)); // (N, D)
  const weights = attention.forward(x, N).weights(0);
  const tokens = Array.from({ length: N }, (_, i) => `t${i}`);
  const view = createHeadView(document.body.appendChild(document.createElement('div')), { timing: true });
  view.update({ tokens, unknown: tokens.map(() => false), weights, title: 'head 1 of a 512-token layer' });
  window.__result = { n: N, firstRowSum: weights.subarray(0, N).reduce((a, b) => a + b) };
  window.__done = true;
} catch (error) {
  window.__error = String(error?.stack ?? error);
}
