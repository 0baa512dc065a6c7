// The model view at BERT-base's size: 12 layers × 12 heads of a seeded 128-token attention, drawn
// by the grid view with every head's role badge (headRoles) and a toggle per badge, as the page
// draws it. Each hover's time to paint is recorded as a 'grid-hover-to-paint' performance measure:
// from the first pointermove a frame will show to the moment after that frame is painted. Added to
// views.html, which has the import map the views need.
import { loadEngine } from '/web/src/index.js';
import { headRoles } from '/web/src/head-roles.js';
import { createGridView } from '/web/src/views/grid-view.js';
import { VIEWS_CSS } from '/web/src/views/styles.js';

const N = 128, D = 96, LAYERS = 12, HEADS = 12;

try {
  const style = document.createElement('style');
  style.textContent = VIEWS_CSS;
  document.head.append(style);
  const engine = await loadEngine();
  const x = Float32Array.from({ length: N * D }, (_, i) => Math.sin(i * 0.37) + Math.cos(i * 0.011)); // (N, D)
  const layers = Array.from({ length: LAYERS }, (_, l) => {
    const attention = engine.createAttention({ dModel: D, numHeads: HEADS, causal: false, seed: 11 + l });
    const trace = attention.forward(x, N);
    return { weights: Array.from({ length: HEADS }, (_, h) => trace.weights(h)) };
  });
  const tokens = Array.from({ length: N }, (_, i) => `t${i}`);
  const roles = headRoles({ tokens, layers: LAYERS, heads: HEADS, attention: (l, h) => layers[l].weights[h] });
  window.__toggled = [];
  const view = createGridView(document.body.appendChild(document.createElement('div')), {
    onToggleHead: (layer, head) => window.__toggled.push([layer, head]),
  });
  view.update({
    tokens, causal: false, title: 'Every layer',
    rows: layers.map((l, i) => ({
      title: `Layer ${i + 1}`, weights: l.weights, ablated: l.weights.map(() => false),
      roles: l.weights.map((_, h) => roles[i * HEADS + h].top),
    })),
  });
  let pending = false;
  document.addEventListener('pointermove', () => {
    if (pending) return;
    pending = true;
    performance.mark('grid-hover');
    requestAnimationFrame(() => {
      // A message posted during a frame is handled after that frame is painted.
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        performance.measure('grid-hover-to-paint', 'grid-hover');
        pending = false;
      };
      channel.port2.postMessage(null);
    });
  }, { capture: true });
  window.__result = { cards: document.querySelectorAll('.mh-grid-card').length, badges: document.querySelectorAll('.mh-role-badge').length };
  window.__done = true;
} catch (error) {
  window.__error = String(error?.stack ?? error);
}
