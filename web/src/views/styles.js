// The views' CSS as one string, for a <style> element in a page or, later, in a shadow root.
// Every rule is scoped under an mh- class, and colours come from the --mh-* custom properties
// (with light defaults), so the host page sets the theme and the views never style the host.
import { GRID_CSS } from './grid-view.js';
import { HEAD_CSS } from './head-view.js';
import { LINES_CSS } from './lines-view.js';
import { STEPS_CSS } from './steps-view.js';

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
.mh-token { font-family: var(--mh-font-mono, ui-monospace, monospace); }
.mh-unknown { text-decoration: underline dashed; text-underline-offset: 2px; font-style: italic; }
.mh-visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;

export const VIEWS_CSS = [BASE_CSS, GRID_CSS, HEAD_CSS, LINES_CSS, STEPS_CSS].join('\n');
