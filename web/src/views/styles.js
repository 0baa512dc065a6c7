// The views' CSS as one string, for a <style> element in a page or in a shadow root, and the two
// palettes (light and dark) of --mh-* custom properties they read. Every rule is scoped under an
// mh- class, so the views never style the host; the page and the element choose the palette.
import { ALIGNMENT_CSS } from './alignment-view.js';
import { GRID_CSS } from './grid-view.js';
import { HEAD_CSS } from './head-view.js';
import { LINES_CSS } from './lines-view.js';
import { STEPS_CSS } from './steps-view.js';
import { WHY_CSS } from './why-view.js';

const BASE_CSS = `
.mh-matrix { position: relative; display: inline-block; line-height: 0; }
.mh-matrix canvas { display: block; }
.mh-matrix-overlay { position: absolute; left: 0; top: 0; pointer-events: none; }
.mh-tooltip { position: absolute; z-index: 2; pointer-events: none; white-space: nowrap; padding: 3px 6px;
  font: 13px var(--mh-font-mono, ui-monospace, monospace); color: var(--mh-bg, #fff); background: var(--mh-fg, #222);
  border-radius: 4px; }
.mh-legend { display: inline-grid; grid-template-columns: auto; gap: 2px; margin: 8px 0; font-size: 12px;
  color: var(--mh-muted, #666); }
.mh-legend canvas { width: 160px; height: 10px; image-rendering: pixelated; }
.mh-legend-ticks { display: flex; justify-content: space-between; width: 160px; }
.mh-causal-key, .mh-window-key { display: flex; align-items: center; gap: 6px; margin: 0 0 8px; font-size: 12px; color: var(--mh-muted, #666); }
.mh-causal-key[hidden], .mh-window-key[hidden] { display: none; }
.mh-causal-swatch { flex: none; width: 14px; height: 14px; border: 1px solid var(--mh-border, #ccc);
  background: repeating-linear-gradient(-45deg, rgb(128 128 128 / 0.55) 0 1.5px, transparent 1.5px 4.2px); }
.mh-window-swatch { flex: none; width: 14px; height: 14px; border: 1px solid var(--mh-border, #ccc);
  background: repeating-linear-gradient(45deg, rgb(128 128 128 / 0.55) 0 1.5px, transparent 1.5px 4.2px),
    repeating-linear-gradient(-45deg, rgb(128 128 128 / 0.55) 0 1.5px, transparent 1.5px 4.2px); }
.mh-token { font-family: var(--mh-font-mono, ui-monospace, monospace); }
.mh-unknown { text-decoration: underline dashed; text-underline-offset: 2px; font-style: italic; }
.mh-visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

export const VIEWS_CSS = [BASE_CSS, GRID_CSS, HEAD_CSS, LINES_CSS, STEPS_CSS, WHY_CSS, ALIGNMENT_CSS].join('\n');

/** The --mh-* colours of each theme; the page and <multihead-view> both set these. */
const PALETTES = {
  light: { fg: '#1d1d1f', bg: '#ffffff', muted: '#5f6368', border: '#c8ccd2', accent: '#0067a3', panel: '#f4f5f7', warn: '#8a4b00' },
  dark: { fg: '#e8eaed', bg: '#17181b', muted: '#a0a4aa', border: '#43474d', accent: '#6cb6ff', panel: '#222428', warn: '#ffb454' },
};

/** The declarations of theme `name` ('light' or 'dark'), for the inside of a CSS rule. */
export function palette(name) {
  const colors = Object.entries(PALETTES[name]).map(([key, value]) => `--mh-${key}: ${value};`).join(' ');
  return `${colors} --mh-font-mono: ui-monospace, "DejaVu Sans Mono", monospace; color-scheme: ${name};`;
}
