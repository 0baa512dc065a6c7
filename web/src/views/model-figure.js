// The model view as a file: every layer's heads as thumbnails in one figure, a row per layer, each
// with its caption ("L2 H1", or "L2 H1 (off)" and a border when the head is switched off) and its
// role badge when the page has one. The PNG and the SVG come from one layout and one list of texts.
// The SVG keeps its texts as text but its thumbnails as images: one <rect> per cell would be 2.4
// million elements at 144 heads and 128 tokens, so each thumbnail is an 8-bit palette PNG (the
// weight colours as its palette, one index per cell) written here, scaled without smoothing.
// It makes strings and Blobs only: it does not save, download or place anything on the page.
import { colorIndex, weightScale } from './colormap.js';
import { FONT_FAMILY, clipText, drawText, figureCanvas, svgText } from './export.js';

const MARGIN = 16; // px around the whole figure
const TITLE_LINE = 28; // px for the figure's title
const ROW_LABEL = 64; // px left of each row for "Layer 3"
const CAPTION_LINE = 16; // px above each thumbnail for "L3 H2"
const BADGE_LINE = 16; // px below each thumbnail for its role
const GAP = 10; // px between thumbnails, and between rows
const THUMB_SIDE = 96; // px a thumbnail aims for; the cell clamps below decide in the end
const BADGE_CHARS = 16; // "punctuation 0.93", the longest role badge; a longer one is cut with an ellipsis
const MIN_SLOT = 100; // px a column keeps however small its thumbnail: BADGE_CHARS at SMALL_FONT (≈ 0.6 em each)
const MIN_CELL = 1, MAX_CELL = 8; // px per cell
const TITLE_FONT = 15, LABEL_FONT = 12, SMALL_FONT = 10; // px
const TEXT_COLOR = '#222', OFF_COLOR = '#d55e00';

/**
 * The figure's layout in integer px for n tokens, `layers` rows of `heads` thumbnails: each
 * thumbnail carries its top-left corner (x, y) of the matrix, its layer and head. A thumbnail is
 * `side` = n × `cell` px; its column is `slot` px wide, at least MIN_SLOT, so badges never overlap.
 */
export function modelLayout({ n, layers, heads }) {
  for (const [name, value] of [['n', n], ['layers', layers], ['heads', heads]]) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`a model figure needs ${name} ≥ 1, not ${value}`);
  }
  const cell = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(THUMB_SIDE / n)));
  const side = n * cell;
  const slot = Math.max(side, MIN_SLOT);
  const rowHeight = CAPTION_LINE + side + BADGE_LINE;
  const thumbs = [];
  for (let layer = 0; layer < layers; layer++) {
    for (let head = 0; head < heads; head++) {
      thumbs.push({
        layer, head,
        x: MARGIN + ROW_LABEL + head * (slot + GAP),
        y: MARGIN + TITLE_LINE + layer * (rowHeight + GAP) + CAPTION_LINE,
      });
    }
  }
  return {
    width: 2 * MARGIN + ROW_LABEL + heads * slot + (heads - 1) * GAP,
    height: 2 * MARGIN + TITLE_LINE + layers * rowHeight + (layers - 1) * GAP,
    n, cell, side, slot, rowHeight, thumbs,
  };
}

/**
 * Every text of the figure, as export.js's drawText and svgText take them: { text, x, y, size,
 * anchor, vertical, color } with y the vertical centre; all read left to right from x.
 */
function figureTexts(layout, { title, badges, ablated }) {
  const text = (content, x, y, size, color = TEXT_COLOR) => ({ text: content, x, y, size, anchor: 'start', vertical: false, color });
  const texts = [text(title, MARGIN, MARGIN + TITLE_LINE / 2, TITLE_FONT)];
  for (const { layer, head, x, y } of layout.thumbs) {
    if (head === 0) texts.push(text(`Layer ${layer + 1}`, MARGIN, y + layout.side / 2, LABEL_FONT));
    const off = Boolean(ablated?.[layer]?.[head]);
    const color = off ? OFF_COLOR : TEXT_COLOR;
    texts.push(text(`L${layer + 1} H${head + 1}${off ? ' (off)' : ''}`, x, y - CAPTION_LINE / 2, SMALL_FONT, color));
    const badge = badges?.[layer]?.[head];
    if (badge) texts.push(text(clipText(String(badge), BADGE_CHARS), x, y + layout.side + BADGE_LINE / 2, SMALL_FONT, color));
  }
  return texts;
}

/** The input checked: every head n × n, and badges and ablated, when given, one per head. */
function checkModel({ tokens, layers, badges, ablated }) {
  if (!Array.isArray(tokens) || tokens.length < 1) throw new RangeError('a model figure needs at least one token');
  if (!Array.isArray(layers) || layers.length < 1) throw new RangeError('a model figure needs at least one layer');
  const n = tokens.length, heads = layers[0].weights?.length;
  layers.forEach(({ weights }, l) => {
    if (weights?.length !== heads) throw new RangeError(`layer ${l + 1} has ${weights?.length ?? 'no'} heads; layer 1 has ${heads}`);
    weights.forEach((w, h) => {
      if (w?.length !== n * n) throw new RangeError(`layer ${l + 1} head ${h + 1} has ${w?.length ?? 'no'} weights; ${n} tokens need ${n * n}`);
    });
  });
  for (const [name, grid] of [['badges', badges], ['ablated', ablated]]) {
    if (grid === undefined) continue;
    if (!Array.isArray(grid) || grid.length !== layers.length || !grid.every((row) => Array.isArray(row) && row.length === heads)) {
      throw new RangeError(`${name} must hold one entry per head: ${layers.length} layers of ${heads}`);
    }
  }
  return modelLayout({ n, layers: layers.length, heads });
}

/**
 * The model view as a PNG Blob of exactly modelLayout's size. tokens: string[] (n). layers:
 * [{ weights: Float32Array (n × n) per head }]. badges: per layer, per head, a text or null
 * (optional). ablated: per layer, per head, whether it is switched off (optional). title: text.
 */
export async function modelPng({ tokens, layers, badges, ablated, title = '' }) {
  const layout = checkModel({ tokens, layers, badges, ablated });
  const { side } = layout;
  const { canvas, ctx, drawMatrix } = figureCanvas(layout.width, layout.height, layout.n);
  for (const { layer, head, x, y } of layout.thumbs) {
    drawMatrix(layers[layer].weights[head], x, y, side);
    if (ablated?.[layer]?.[head]) {
      ctx.strokeStyle = OFF_COLOR;
      ctx.lineWidth = 2;
      ctx.strokeRect(x - 1, y - 1, side + 2, side + 2);
    }
  }
  for (const text of figureTexts(layout, { title, badges, ablated })) drawText(ctx, text);
  return canvas.convertToBlob({ type: 'image/png' });
}

/** The same figure as modelPng, as an SVG document string (async: its thumbnails are compressed). */
export async function modelSvg({ tokens, layers, badges, ablated, title = '' }) {
  const layout = checkModel({ tokens, layers, badges, ablated });
  const { width, height, n, side } = layout;
  const scale = weightScale();
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
  ];
  for (const { layer, head, x, y } of layout.thumbs) {
    const png = await palettePng(layers[layer].weights[head], n, scale);
    parts.push(`<image x="${x}" y="${y}" width="${side}" height="${side}" preserveAspectRatio="none" ` +
      `style="image-rendering:pixelated" href="data:image/png;base64,${base64(png)}"/>`);
    if (ablated?.[layer]?.[head]) {
      parts.push(`<rect x="${x - 1}" y="${y - 1}" width="${side + 2}" height="${side + 2}" fill="none" stroke="${OFF_COLOR}" stroke-width="2"/>`);
    }
  }
  for (const text of figureTexts(layout, { title, badges, ablated })) parts.push(svgText(text));
  parts.push('</svg>\n');
  return parts.join('\n');
}

/**
 * An (n × n) matrix as an 8-bit palette PNG: the scale's colours as PLTE, each cell its colour's
 * index, rows filtered with None and compressed by the platform's zlib (CompressionStream).
 */
export async function palettePng(values, n, scale) {
  const raw = new Uint8Array(n * (n + 1)); // each row: filter byte 0, then n indices
  for (let q = 0; q < n; q++) {
    for (let k = 0; k < n; k++) raw[q * (n + 1) + 1 + k] = colorIndex(scale, values[q * n + k]);
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, n);
  view.setUint32(4, n);
  header.set([8, 3, 0, 0, 0], 8); // bit depth 8, colour type 3 (palette), deflate, no filter set, no interlace
  const entries = scale.lut.length / 4;
  const palette = new Uint8Array(entries * 3);
  for (let i = 0; i < entries; i++) palette.set(scale.lut.subarray(i * 4, i * 4 + 3), i * 3);
  const compressed = new Uint8Array(await new Response(new Blob([raw]).stream().pipeThrough(new CompressionStream('deflate'))).arrayBuffer());
  const parts = [Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    chunk('IHDR', header), chunk('PLTE', palette), chunk('IDAT', compressed), chunk('IEND', new Uint8Array(0))];
  const png = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) {
    png.set(p, at);
    at += p.length;
  }
  return png;
}

/** One PNG chunk: length, type, data, and the CRC-32 of type and data. */
function chunk(type, data) {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

let CRC_TABLE = null;

/** CRC-32 as PNG (and zlib's gzip) defines it: polynomial 0xEDB88320, reflected, inverted. */
export function crc32(bytes) {
  CRC_TABLE ??= Uint32Array.from({ length: 256 }, (_, i) => {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function base64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
