// Colour scales for the views: value → colour through a 256-entry lookup table, a legend, and a
// palette for telling heads apart. The colours come from d3-scale-chromatic: viridis for weights
// (perceptually uniform, readable with the common colour-vision deficiencies, monotonic in
// lightness so it survives greyscale) and RdBu for signed values (a ColorBrewer scheme marked
// colour-blind safe, white at zero). This module computes no layout and touches no page state.
import { interpolateRdBu, interpolateViridis } from 'd3-scale-chromatic';

const STEPS = 256;

// d3's interpolators answer "#rrggbb" (viridis) or "rgb(r, g, b)" (RdBu).
function channels(color) {
  if (color.startsWith('#')) return [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
  return color.match(/\d+/g).slice(0, 3).map(Number);
}

function table(interpolate) {
  const lut = new Uint8ClampedArray(STEPS * 4);
  for (let i = 0; i < STEPS; i++) lut.set([...channels(interpolate(i / (STEPS - 1))), 255], i * 4);
  return lut;
}

const VIRIDIS = table(interpolateViridis);
const RD_BU = table((t) => interpolateRdBu(1 - t)); // blue for negative, red for positive

/**
 * A scale for attention weights: 0 to 1, whatever the matrix holds, so every head is drawn on the
 * same scale and a pale cell means the same weight everywhere.
 */
export function weightScale() {
  return { lut: VIRIDIS, min: 0, max: 1, label: 'attention weight' };
}

/** A scale for signed values, symmetric around 0 and wide enough for every finite value given. */
export function signedScale(...arrays) {
  let m = 0;
  for (const values of arrays) {
    for (const v of values) if (Number.isFinite(v) && Math.abs(v) > m) m = Math.abs(v);
  }
  if (m === 0) m = 1;
  return { lut: RD_BU, min: -m, max: m, label: 'value' };
}

/** The lookup-table index of `value` on `scale`; non-finite values (masked scores) map to the low end. */
export function colorIndex(scale, value) {
  if (!Number.isFinite(value)) return 0;
  const t = (value - scale.min) / (scale.max - scale.min);
  return Math.max(0, Math.min(STEPS - 1, Math.round(t * (STEPS - 1))));
}

/** Entry `index` of `scale`'s lookup table as "#rrggbb", for SVG and CSS. */
export function lutHex(scale, index) {
  const hex = (c) => scale.lut[index * 4 + c].toString(16).padStart(2, '0');
  return `#${hex(0)}${hex(1)}${hex(2)}`;
}

/** `value`'s colour on `scale` as "#rrggbb". */
export function hexColor(scale, value) {
  return lutHex(scale, colorIndex(scale, value));
}

/** Whether dark or light text reads better on `value`'s colour (for numbers drawn in cells). */
export function textColorOn(scale, value) {
  const i = colorIndex(scale, value) * 4;
  const luminance = 0.2126 * scale.lut[i] + 0.7152 * scale.lut[i + 1] + 0.0722 * scale.lut[i + 2];
  return luminance > 140 ? '#000' : '#fff';
}

// Each lookup table's colours as whole pixels (RGBA in memory order), made on first use.
const PIXELS = new WeakMap();
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

function pixelTable(lut) {
  let table = PIXELS.get(lut);
  if (!table) {
    table = new Uint32Array(STEPS);
    for (let i = 0; i < STEPS; i++) {
      const [r, g, b] = lut.subarray(i * 4, i * 4 + 3);
      table[i] = LITTLE_ENDIAN ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
    }
    PIXELS.set(lut, table);
  }
  return table;
}

/**
 * An ImageData with one pixel per value of a (rows × cols) row-major matrix: colorIndex's colour
 * for each, written a pixel at a time (144 heads of 128 × 128 are 2.4 million of them).
 */
export function matrixImage(values, rows, cols, scale) {
  const image = new ImageData(cols, rows);
  const px = new Uint32Array(image.data.buffer);
  const table = pixelTable(scale.lut);
  for (let k = 0; k < rows * cols; k++) px[k] = table[colorIndex(scale, values[k])];
  return image;
}

/**
 * A legend: the scale's gradient with its ends and middle labelled. Returns a new element; the
 * caller places it.
 */
export function createLegend(scale, { label = scale.label } = {}) {
  const figure = document.createElement('figure');
  figure.className = 'mh-legend';
  const bar = document.createElement('canvas');
  bar.width = STEPS;
  bar.height = 1;
  bar.setAttribute('aria-hidden', 'true');
  const image = new ImageData(STEPS, 1);
  image.data.set(scale.lut);
  bar.getContext('2d').putImageData(image, 0, 0);
  const ticks = document.createElement('div');
  ticks.className = 'mh-legend-ticks';
  for (const v of [scale.min, (scale.min + scale.max) / 2, scale.max]) {
    const tick = document.createElement('span');
    tick.textContent = formatNumber(v);
    ticks.append(tick);
  }
  const caption = document.createElement('figcaption');
  caption.textContent = label;
  figure.setAttribute('role', 'img');
  figure.setAttribute('aria-label', `${label}: colour scale from ${formatNumber(scale.min)} to ${formatNumber(scale.max)}`);
  figure.append(caption, bar, ticks);
  return figure;
}

/**
 * Colours for telling heads apart: the Okabe–Ito palette, chosen to stay distinct under the
 * common colour-vision deficiencies. Its yellow and dark blue come last: thin yellow lines vanish
 * on white, dark blue ones on a dark theme. Heads beyond eight reuse colours.
 */
const HEAD_COLORS = ['#E69F00', '#56B4E9', '#009E73', '#D55E00', '#CC79A7', '#0072B2', '#F0E442', '#999999'];

export function headColor(head) {
  return HEAD_COLORS[head % HEAD_COLORS.length];
}

/** A number as the views print it: 3 decimals, a true minus sign, no "-0.000". */
export function formatNumber(value) {
  if (value === -Infinity) return '−∞';
  const text = value.toFixed(3);
  return (text === '-0.000' ? '0.000' : text).replace('-', '−');
}
