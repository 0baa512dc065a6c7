// The model view at BERT-base's size: 12 layers × 12 heads of a seeded 128-token attention, drawn
// by the grid view with every head's role badge (headRoles) and a toggle per badge, as the page
// draws it. Each hover's time to paint is recorded as a 'grid-hover-to-paint' performance measure:
// from the first pointermove a frame will show to the moment after that frame is painted. Added to
// views.html, which has the import map the views need.
// Before that, window.__showAll() draws it, the heads are given at 128 tokens, all switched off,
// and at once at 64 tokens: what is left of the first drawing, in slices, must be abandoned (the
// second, quicker to draw, would otherwise be overtaken by it).
import { loadEngine } from '/web/src/index.js';
import { headRoles } from '/web/src/analysis/head-roles.js';
import { createGridView } from '/web/src/views/grid-view.js';
import { VIEWS_CSS } from '/web/src/views/styles.js';

const N = 128, D = 96, LAYERS = 12, HEADS = 12;

try {
  const style = document.createElement('style');
  style.textContent = VIEWS_CSS;
  document.head.append(style);
  const engine = await loadEngine();
  const x = Float32Array.from({ length: N * D }, (_, i) => Math.sin(i * 0.37) + Math.cos(i * 0.011)); // (N, D)
  const run = (n) => Array.from({ length: LAYERS }, (_, l) => {
    const attention = engine.createAttention({ dModel: D, numHeads: HEADS, causal: false, seed: 11 + l });
    const trace = attention.forward(x.subarray(0, n * D), n);
    return { weights: Array.from({ length: HEADS }, (_, h) => trace.weights(h)) };
  });
  const layers = run(N);
  const tokens = Array.from({ length: N }, (_, i) => `t${i}`);
  const roles = headRoles({ tokens, layers: LAYERS, heads: HEADS, attention: (l, h) => layers[l].weights[h] });
  window.__toggled = [];
  const root = document.body.appendChild(document.createElement('div'));
  const view = createGridView(root, {
    onToggleHead: (layer, head) => window.__toggled.push([layer, head]),
  });
  const plain = (runs, off) => runs.map((l, i) => ({ title: `Layer ${i + 1}`, weights: l.weights, ablated: l.weights.map(() => off) }));
  view.update({ tokens, causal: false, title: 'Every layer', rows: plain(layers, true) });
  view.update({ tokens: tokens.slice(0, N / 2), causal: false, title: 'Every layer', rows: plain(run(N / 2), false) });
  const busy = root.getAttribute('aria-busy');
  // `copy`: the same numbers in new arrays, which the grid paints again (the same arrays it does
  // not); the layers from `upTo` on are still to come (weights null), as while a run streams.
  window.__showAll = ({ copy = false, upTo = LAYERS } = {}) => view.update({
    tokens, causal: false, title: 'Every layer',
    rows: layers.map((l, i) => ({
      title: `Layer ${i + 1}`, heads: HEADS, weights: i >= upTo ? null : copy ? l.weights.map((w) => w.slice()) : l.weights,
      ablated: l.weights.map(() => false), roles: l.weights.map((_, h) => roles[i * HEADS + h].top),
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
  window.__result = {
    cards: document.querySelectorAll('.mh-grid-card').length, badges: document.querySelectorAll('.mh-role-badge').length,
    busy, off: document.querySelectorAll('.mh-off').length,
  };
  window.__done = true;
} catch (error) {
  window.__error = String(error?.stack ?? error);
}
